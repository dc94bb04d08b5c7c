"""Claude on Amazon Bedrock and Google Vertex AI, through the official `anthropic` package.

Those platforms sign requests with AWS or Google credentials, which only their SDKs do well, so this provider
uses `AsyncAnthropicBedrock` / `AsyncAnthropicVertex` (imported on first use: an optional extra,
`pip install 'yoke[bedrock]'` or `'yoke[vertex]'`). Their events are the Messages API's own, so the same
assembler as the direct provider turns them into provider events. Retries are the SDK's.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from typing import Any, Literal

from yoke.providers.anthropic import anthropic_error, build_request_body
from yoke.providers.anthropic_stream import AnthropicAssembler
from yoke.providers.base import ErrorKind, ModelRequest, ProviderError, ProviderEvent
from yoke.providers.http import MidStreamError, one_line
from yoke.providers.retry import DEFAULT_MAX_RETRIES

Platform = Literal["bedrock", "vertex"]
LABELS = {"bedrock": "Bedrock", "vertex": "Vertex AI"}
DEFAULT_VERTEX_REGION = "us-east5"


class CloudProvider:
    def __init__(
        self,
        platform: Platform,
        *,
        region: str | None = None,
        project_id: str | None = None,
        base_url: str | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        client: Any = None,  # a ready SDK client (tests pass a fake)
    ) -> None:
        self.name: str = platform
        self.platform = platform
        self.region = region
        self.project_id = project_id
        self.base_url = base_url
        self.max_retries = max_retries
        self._client = client

    @classmethod
    def from_env(cls, platform: Platform, env: Mapping[str, str]) -> CloudProvider:
        """Bedrock: AWS_REGION (or AWS_DEFAULT_REGION), ANTHROPIC_BEDROCK_BASE_URL; credentials the AWS way.
        Vertex: CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID, ANTHROPIC_VERTEX_BASE_URL; credentials the
        Google way. Both: YOKE_MAX_RETRIES / CLAUDE_CODE_MAX_RETRIES."""
        from yoke.providers.retry import RetryPolicy

        retries = RetryPolicy.from_env(env).max_retries
        if platform == "bedrock":
            region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
            return cls(
                platform, region=region, base_url=env.get("ANTHROPIC_BEDROCK_BASE_URL"), max_retries=retries
            )
        return cls(
            platform,
            region=env.get("CLOUD_ML_REGION") or DEFAULT_VERTEX_REGION,
            project_id=env.get("ANTHROPIC_VERTEX_PROJECT_ID"),
            base_url=env.get("ANTHROPIC_VERTEX_BASE_URL"),
            max_retries=retries,
        )

    def client(self) -> Any:
        if self._client is None:
            self._client = make_sdk_client(self)
        return self._client

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        client = self.client()
        body = build_request_body(request, request.stream)
        body.pop("stream")
        assembler = AnthropicAssembler(request.model)
        try:
            if request.stream:
                async for event in sdk_events(await client.messages.create(**body, stream=True), assembler):
                    yield event
            else:
                message = await client.messages.create(**body)
                for event in assembler.from_body(as_event_dict(message)):
                    yield event
        except ProviderError:
            raise
        except MidStreamError as exc:
            raise exc.error from None
        except Exception as exc:
            raise self.sdk_error(exc, request.model) from exc

    def sdk_error(self, exc: Exception, model: str) -> Exception:
        """Map the SDK's exceptions (matched by duck type: the package may be absent) to one-line errors."""
        label = LABELS[self.platform]
        status = getattr(exc, "status_code", None)
        if isinstance(status, int):
            body = getattr(exc, "body", None)
            body = body if isinstance(body, dict) and "error" in body else {"error": body}
            if status in (401, 403):
                kind: ErrorKind = "authentication" if status == 401 else "permission"
                message = f"{label} refused the request ({status}): {one_line(str(exc))}"
                return ProviderError(kind, f"{message} · {_credential_hint(self.platform)}", status)
            return anthropic_error(status, body, str(exc), model, label)
        name = type(exc).__name__
        if name in ("APIConnectionError", "APITimeoutError"):
            return ProviderError("connection", f"cannot reach {label}: {one_line(str(exc))}")
        if "Credentials" in name or "DefaultCredentialsError" in name:
            return ProviderError(
                "authentication", f"{label} credentials not found · {_credential_hint(self.platform)}"
            )
        return exc

    async def aclose(self) -> None:
        if self._client is not None and hasattr(self._client, "close"):
            await self._client.close()


async def sdk_events(stream: Any, assembler: AnthropicAssembler) -> AsyncGenerator[ProviderEvent, None]:
    """Feed an SDK event stream (objects or dicts with a `type`) through the assembler."""
    async for raw in stream:
        data = as_event_dict(raw)
        for event in assembler.handle(str(data.get("type", "")), data):
            yield event
        if assembler.done:
            return
    raise ProviderError("connection", "the model's stream ended before message_stop")


def as_event_dict(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if hasattr(raw, "model_dump"):
        return raw.model_dump(mode="json", exclude_none=False)
    return dict(vars(raw))


def make_sdk_client(provider: CloudProvider) -> Any:
    try:
        import anthropic
    except ImportError:
        raise ProviderError(
            "config",
            f"{LABELS[provider.platform]} needs the anthropic package: pip install 'yoke[{provider.platform}]'",
        ) from None
    extra: dict[str, Any] = {"max_retries": provider.max_retries}
    if provider.base_url:
        extra["base_url"] = provider.base_url
    if provider.platform == "bedrock":
        return anthropic.AsyncAnthropicBedrock(aws_region=provider.region, **extra)
    return anthropic.AsyncAnthropicVertex(region=provider.region, project_id=provider.project_id, **extra)


def _credential_hint(platform: Platform) -> str:
    if platform == "bedrock":
        return "check your AWS credentials (AWS_PROFILE, aws configure or aws sso login) and AWS_REGION"
    return "run gcloud auth application-default login and check ANTHROPIC_VERTEX_PROJECT_ID"
