"""Check the service's real responses against openapi.yaml.

`validate_exchange(...)` checks one response: the path template and operation it belongs
to, that its status is documented there, its required headers, its media type, and its
JSON body against the documented schema (JSON Schema draft 2020-12, `$ref`s resolved
within openapi.yaml). Any mismatch is an AssertionError saying what and where.

`validating_trace_config()` does that for every request an aiohttp client sends:

    TestClient(Served(app), trace_configs=[validating_trace_config()])

Inside `with unchecked():` responses are not checked (for a test that means to provoke
something the description does not promise).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn

import aiohttp
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_PATH = Path(__file__).resolve().parent.parent / "openapi.yaml"
SPEC_URI = "urn:open-solitaire:openapi"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
JSON_MEDIA = re.compile(r"^application/(.+\+)?json$")
MAX_BODY_IN_MESSAGE = 600
# a control character: a path with one matches no template (x-unmatched-routes)
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

_enabled: contextvars.ContextVar[bool] = contextvars.ContextVar("openapi_check", default=True)


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """Responses received inside this block are not validated."""
    token = _enabled.set(False)
    try:
        yield
    finally:
        _enabled.reset(token)


# ------------------------------------------------------------------ the description


@dataclass(frozen=True)
class _Template:
    path: str
    regex: re.Pattern[str]
    literal_segments: int


class Spec:
    """openapi.yaml, its path templates and a $ref registry for jsonschema."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        templates = []
        for p in document.get("paths", {}):
            parts = re.split(r"(\{[^}/]+\})", p)
            regex = "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)
            literal = sum(1 for seg in p.split("/") if seg and not seg.startswith("{"))
            templates.append(_Template(p, re.compile(regex), literal))
        self.templates = tuple(templates)
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        self.registry: Registry = Registry().with_resource(SPEC_URI, resource)
        self._validators: dict[str, Draft202012Validator] = {}

    def resolve(self, node: Any) -> Any:
        """Follow a (local) `$ref` of a non-schema object: response, header, parameter."""
        seen = 0
        while isinstance(node, dict) and "$ref" in node:
            node = self.pointer(node["$ref"])
            seen += 1
            if seen > 20:
                raise AssertionError("openapi.yaml: $ref loop")
        return node

    def pointer(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise AssertionError(f"openapi.yaml: only local $refs are supported, not {ref!r}")
        node: Any = self.document
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[part]
        return node

    def match(self, url_path: str) -> str | None:
        """The path template `url_path` belongs to; literal segments win over parameters.
        A path with a control character belongs to none (`x-unmatched-routes`)."""
        if CONTROL.search(url_path):
            return None
        best: _Template | None = None
        for t in self.templates:
            if not t.regex.fullmatch(url_path):
                continue
            if best is None or t.literal_segments > best.literal_segments:
                best = t
        return best.path if best else None

    def validator(self, ref: str) -> Draft202012Validator:
        """A draft 2020-12 validator of the schema at `ref` (a local JSON pointer)."""
        found = self._validators.get(ref)
        if found is None:
            found = self._validators[ref] = Draft202012Validator(
                {"$ref": SPEC_URI + ref},
                registry=self.registry,
                format_checker=Draft202012Validator.FORMAT_CHECKER,
            )
        return found


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


@functools.cache
def load_spec(path: Path = SPEC_PATH) -> Spec:
    return Spec(yaml.safe_load(path.read_text(encoding="utf-8")))


# ------------------------------------------------------------------ checking one response


def _short(body: bytes) -> str:
    text = body.decode("utf-8", "replace")
    return text if len(text) <= MAX_BODY_IN_MESSAGE else text[:MAX_BODY_IN_MESSAGE] + "…"


def _media_type(headers: Mapping[str, str]) -> str | None:
    value = _header(headers, "Content-Type")
    if value is None:
        return None
    return value.split(";", 1)[0].strip().lower()


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:
        lowered = name.lower()
        for key, v in headers.items():
            if key.lower() == lowered:
                return v
    return value


def _check_header_value(name: str, value: str, schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if kind == "integer":
        try:
            number = int(value.strip())
        except ValueError:
            return f"header {name}: {value!r} is not a whole number"
        if "minimum" in schema and number < schema["minimum"]:
            return f"header {name}: {number} is below {schema['minimum']}"
    return None


def _response_for(spec: Spec, op_pointer: str, responses: Mapping[str, Any],
                  status: int) -> tuple[str, Any] | None:
    for key in (str(status), f"{str(status)[0]}XX", "default"):
        if key in responses:
            return f"{op_pointer}/{_escape(key)}", responses[key]
    return None


def validate_exchange(method: str, url_path: str, query: Mapping[str, Any], status: int,
                      headers: Mapping[str, str], body: bytes) -> None:
    """Assert that this response is one openapi.yaml documents, body and all."""
    spec = load_spec()
    method_l = method.lower()
    q = "&".join(f"{k}={v}" for k, v in dict(query).items())
    where = f"{method.upper()} {url_path}{'?' + q if q else ''} -> {status}"

    def fail(why: str) -> NoReturn:
        raise AssertionError(f"openapi.yaml: {where}: {why}\n  body: {_short(body)}")

    template = spec.match(url_path)
    path_item = spec.resolve(spec.document["paths"][template]) if template else None
    body_checked = method_l != "head"
    operation = None
    if path_item is not None:
        operation = path_item.get(method_l)
        if operation is None and method_l == "head":
            operation = path_item.get("get")  # aiohttp answers HEAD on every GET route

    if operation is None:
        unmatched = spec.document.get("x-unmatched-routes", {})
        kind = "unknown-path" if template is None else "unknown-method"
        if method_l == "options" and str(status) in unmatched.get("cors-preflight", {}):
            kind = "cors-preflight"  # CORS_ORIGINS set: preflights on every route
        responses = unmatched.get(kind, {})
        if str(status) not in responses:
            if template is None:
                fail(f"no path template matches {url_path!r} (and only 404 is documented for that)")
            fail(f"{method.upper()} is not documented on {template} "
                 f"(and only {', '.join(responses) or 'nothing'} is for that)")
        pointer = f"#/x-unmatched-routes/{kind}/{status}"
        response = responses[str(status)]
        label = f"({kind}) {status}"
    else:
        assert template is not None and path_item is not None
        op_pointer = (f"#/paths/{_escape(template)}/"
                      f"{method_l if method_l in path_item else 'get'}/responses")
        found = _response_for(spec, op_pointer, operation.get("responses", {}), status)
        if found is None:
            fail(f"status {status} is not documented for {method.upper()} {template} "
                 f"(documented: {', '.join(operation.get('responses', {}))})")
        pointer, response = found
        label = f"{method.upper()} {template} {status}"

    # a $ref'd response: validate against the component so errors name it
    while isinstance(response, dict) and "$ref" in response:
        pointer = response["$ref"]
        response = spec.pointer(pointer)

    for name, header in (response.get("headers") or {}).items():
        header = spec.resolve(header)
        value = _header(headers, name)
        if value is None:
            if header.get("required"):
                fail(f"the required header {name} is missing ({label})")
            continue
        problem = _check_header_value(name, value, spec.resolve(header.get("schema", {})))
        if problem:
            fail(problem)

    content = response.get("content") or {}
    if not content or status == 101:
        if body_checked and body and status != 101:
            fail(f"{label} documents no body, but one came")
        return
    media = _media_type(headers)
    if media is None:
        if body_checked and body:
            fail(f"no Content-Type; documented: {', '.join(content)}")
        return
    if media not in content:
        fail(f"Content-Type {media} is not documented for {label} "
             f"(documented: {', '.join(content)})")
    if not body_checked or not JSON_MEDIA.match(media):
        return
    media_obj = content[media]
    if "schema" not in media_obj:
        return
    try:
        data = json.loads(body)
    except ValueError as exc:
        fail(f"the {media} body is not JSON: {exc}")
    schema_ref = f"{pointer}/content/{_escape(media)}/schema"
    errors = sorted(spec.validator(schema_ref).iter_errors(data),
                    key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        lines = []
        for e in errors[:8]:
            at = "/" + "/".join(str(p) for p in e.absolute_path)
            in_schema = "/".join(str(p) for p in e.absolute_schema_path)
            lines.append(f"  at {at}: {e.message[:300]} (schema {in_schema})")
        more = f"\n  … and {len(errors) - 8} more" if len(errors) > 8 else ""
        fail(f"the body does not match {schema_ref}:\n" + "\n".join(lines) + more)
    is_problem = media == "application/problem+json" and isinstance(data, dict)
    if is_problem and data.get("status") != status:
        fail(f"the problem's status {data.get('status')!r} is not the HTTP status {status}")


def validate_stream_message(message: str | bytes | Mapping[str, Any]) -> None:
    """Assert that one WebSocket text message of /v1/games/{id}/stream is documented."""
    spec = load_spec()
    data = json.loads(message) if isinstance(message, str | bytes) else dict(message)
    errors = list(spec.validator("#/components/schemas/StreamMessage").iter_errors(data))
    if errors:
        detail = "\n".join(f"  {e.message[:300]}" for e in errors[:8])
        raise AssertionError(f"openapi.yaml: stream message does not match StreamMessage:\n"
                             f"{detail}\n  message: {json.dumps(data)[:MAX_BODY_IN_MESSAGE]}")


# ------------------------------------------------------------------ the aiohttp hook


async def _on_request_end(session: aiohttp.ClientSession, context: SimpleNamespace,
                          params: aiohttp.TraceRequestEndParams) -> None:
    if not _enabled.get():
        return
    response = params.response
    if response.status == 101:  # a WebSocket handshake: no body to read
        body = b""
    else:
        body = await response.read()  # cached: the test can still read it
    validate_exchange(
        params.method, params.url.path, dict(params.url.query), response.status,
        response.headers, body,
    )


def validating_trace_config() -> aiohttp.TraceConfig:
    """A TraceConfig checking every response against openapi.yaml (pass it to the client)."""
    config = aiohttp.TraceConfig()
    config.on_request_end.append(_on_request_end)
    return config
