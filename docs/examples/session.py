"""Drive Yoke from Python: build a session, run two prompts, answer its permission questions, print events.

Run it with a model configured as for `yoke -p` (ANTHROPIC_API_KEY, or OPENAI_BASE_URL and friends).
"""

import asyncio
from pathlib import Path

from yoke import events as ev
from yoke.seams import Answer, NoAsker
from yoke.session import SessionOptions, open_session


class AllowWrites(NoAsker):
    """Answers permission questions: writes are fine, anything else is refused."""

    async def ask(self, question):
        print(f"? {question.tool_name} {question.input}")
        return Answer("allow") if question.tool_name == "Write" else Answer("deny", "not this time")


async def main() -> None:
    session = await open_session(SessionOptions(cwd=Path.cwd(), asker=AllowWrites()))
    try:
        for prompt in ("Write a haiku about rivers to haiku.txt", "Now say how many lines it has"):
            async for event in session.query(prompt):
                if isinstance(event, ev.ToolCallCompleted):
                    print(f"> {event.name}({event.input})")
                elif isinstance(event, ev.Result):
                    print(f"= {event.reason}: {event.text}")
    finally:
        await session.close()


asyncio.run(main())
