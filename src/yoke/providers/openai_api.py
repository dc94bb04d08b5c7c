"""What OpenAI's two wires share: Chat Completions (openai.py) and Responses (responses.py) take the same
key and base URL, fail with the same error bodies and retry on the same answers."""

from __future__ import annotations

from urllib.parse import urlsplit

from yoke.providers.base import ModelRequest, ProviderError
from yoke.providers.http import USER_AGENT, missing_key_error, one_line, prompt_too_long_message
from yoke.providers.http_provider import HttpProvider, access_error, status_error
from yoke.providers.retry import is_retryable
from yoke.providers.transport import HttpResponse

DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_HOST = "api.openai.com"
REASONING_MODEL_PREFIXES = ("o1", "o3", "o4", "gpt-5")


class OpenAIHttpProvider(HttpProvider):
    """OPENAI_API_KEY (sent as a bearer token) and OPENAI_BASE_URL; a key is required only by OpenAI's own
    API, not by the compatible servers."""

    default_base_url = DEFAULT_BASE_URL
    key_vars = ("OPENAI_API_KEY",)
    base_url_vars = ("OPENAI_BASE_URL",)
    missing_key_message = "No OpenAI API key · set OPENAI_API_KEY"

    @property
    def is_openai_api(self) -> bool:
        return urlsplit(self.base_url).hostname == OPENAI_HOST

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "user-agent": USER_AGENT}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        elif self.is_openai_api:
            raise ProviderError("authentication", self.missing_key_message)
        return headers


def should_retry(response: HttpResponse) -> bool:
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("code") == "insufficient_quota":
        return False  # a 429 that waiting will not fix
    return is_retryable(response.status, response.headers)


def openai_error(response: HttpResponse, model: str, base_url: str, keyed: bool = True) -> ProviderError:
    status = response.status
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = one_line(str(error.get("message") or error.get("code") or response.text()))
        code = str(error.get("code") or error.get("type") or "")
    elif isinstance(error, str):  # Ollama and others: {"error": "text"}
        message, code = one_line(error), ""
    else:
        message, code = one_line(response.text()) or "no details", ""
    lowered = message.lower()
    if status == 401 and not keyed:
        return missing_key_error("OPENAI_API_KEY (XAI_API_KEY for Grok)", status)
    if status == 401:
        return ProviderError("authentication", f"Invalid API key · check OPENAI_API_KEY ({message})", status)
    if (denied := access_error(status, message, model, base_url)) is not None:
        return denied
    too_long = ("context_length_exceeded", "string_above_max_length")
    if status == 413 or code in too_long or "context length" in lowered or "context window" in lowered:
        return ProviderError("prompt_too_long", prompt_too_long_message(message), status)
    if status == 429:
        return ProviderError("rate_limit", f"Rate limited by the API (429): {message}", status)
    return status_error(status, message)


def reasoning_effort(request: ModelRequest) -> str | None:
    """OpenAI's reasoning effort for the session's level, when the model takes one: low/medium/high as they
    are; xhigh where the model has it (GPT-5.2, 5.1-codex-max), else high; max (which OpenAI lacks) as the
    model's highest level."""
    from yoke.providers.effort import effort_for, model_levels

    if request.effort == "max":
        levels = model_levels(request.model)
        return levels[-1] if levels else None
    return effort_for(request.model, request.effort)
