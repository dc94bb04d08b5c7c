"""Edit and MultiEdit against real files: exact edits, stale files, near-misses, ambiguity, creation."""

from __future__ import annotations

from pathlib import Path

import pytest

from yoke.tools.base import SessionState, ToolContext, ToolError
from yoke.tools.builtin.edit import EditInput, EditTool, MultiEditInput, MultiEditTool
from yoke.tools.builtin.read import ReadInput, ReadTool
from yoke.tools.builtin.write import WriteInput, WriteTool
from yoke.tools.files import NOT_READ_MESSAGE, STALE_MESSAGE

SOURCE = """\
class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        message = "Hello, " + self.name
        return message

    def shout(self):
        return self.greet().upper()
"""


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "work").mkdir()
    return ToolContext(cwd=tmp_path / "work", session=SessionState("s", tmp_path / "session"))


async def read(ctx: ToolContext, path: Path) -> None:
    await ReadTool().run(ReadInput(file_path=str(path)), ctx)


async def edit(ctx: ToolContext, path: Path, old: str, new: str, replace_all: bool = False):
    inp = EditInput(file_path=str(path), old_string=old, new_string=new, replace_all=replace_all)
    return await EditTool().run(inp, ctx)


async def read_file(ctx: ToolContext, text: str | bytes, name: str = "greeter.py") -> Path:
    path = ctx.cwd / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    await read(ctx, path)
    return path


def test_schema_names():
    edit_schema = EditTool().input_schema()
    assert list(edit_schema["properties"]) == ["file_path", "old_string", "new_string", "replace_all"]
    assert edit_schema["required"] == ["file_path", "old_string", "new_string"]
    multi = MultiEditTool().input_schema()
    assert list(multi["properties"]) == ["file_path", "edits"]
    assert set(multi["properties"]["edits"]["items"]["properties"]) == {
        "old_string",
        "new_string",
        "replace_all",
    }
    assert "$defs" not in multi


async def test_exact_edit_with_snippet_and_data(ctx):
    path = await read_file(ctx, SOURCE)
    result = await edit(ctx, path, 'message = "Hello, " + self.name', 'message = f"Hi, {self.name}"')
    assert 'message = f"Hi, {self.name}"' in path.read_text()
    assert result.content.startswith(f"The file {path} has been updated successfully.")
    assert '6\t        message = f"Hi, {self.name}"' in result.content  # numbered like Read
    assert "did not match exactly" not in result.content
    assert result.data["originalFile"] == SOURCE and result.data["replaceAll"] is False
    assert result.data["structuredPatch"][0]["lines"].count('-        message = "Hello, " + self.name') == 1


async def test_never_read_is_refused(ctx):
    path = ctx.cwd / "unread.py"
    path.write_text(SOURCE)
    with pytest.raises(ToolError) as err:
        await edit(ctx, path, "greet", "welcome")
    assert str(err.value) == NOT_READ_MESSAGE


async def test_exact_duplicates_refused_unless_replace_all(ctx):
    path = await read_file(ctx, SOURCE)
    with pytest.raises(ToolError) as err:
        await edit(ctx, path, "self.name", "self.who")
    assert "Found 2 matches of the string to replace, but replace_all is false" in str(err.value)
    assert "lines 3, 6" in str(err.value)
    assert path.read_text() == SOURCE
    await edit(ctx, path, "self.name", "self.who", replace_all=True)
    assert path.read_text().count("self.who") == 2 and "self.name" not in path.read_text()


async def test_not_found_shows_closest_region_with_line_numbers(ctx):
    path = await read_file(ctx, SOURCE)
    with pytest.raises(ToolError) as err:
        await edit(ctx, path, "    def greet(self):\n        msg = 'Hello, ' + self.name", "x")
    text = str(err.value)
    assert text.startswith("String to replace not found in file.\nString:")
    assert "5\t    def greet(self):" in text and "6\t        message" in text
    assert "First difference: old_string line 2" in text


# ---- stale files -------------------------------------------------------------------------------------


async def test_stale_file_exact_unique_match_applied_with_note(ctx):
    path = await read_file(ctx, SOURCE)
    path.write_text(SOURCE + "\n# appended by the user\n")
    result = await edit(ctx, path, "return self.greet().upper()", "return self.greet().upper() + '!'")
    assert "upper() + '!'" in path.read_text() and "# appended by the user" in path.read_text()
    assert "had changed on disk since you last read it" in result.content
    # The model still has not seen the user's change: Write stays refused until a fresh Read.
    with pytest.raises(ToolError, match="modified since read"):
        await WriteTool().run(WriteInput(file_path=str(path), content="everything\n"), ctx)


async def test_stale_file_near_miss_refused(ctx):
    path = await read_file(ctx, SOURCE)
    path.write_text(SOURCE.replace("Hello", "Howdy"))
    before = path.read_text()
    with pytest.raises(ToolError) as err:  # indentation is off: would match loosely, but the file changed
        await edit(ctx, path, "def shout(self):\n    return self.greet().upper()", "def shout(self): pass")
    assert str(err.value).startswith(STALE_MESSAGE) and "exact, unique" in str(err.value)
    assert path.read_text() == before


async def test_stale_file_ambiguous_exact_refused(ctx):
    path = await read_file(ctx, SOURCE)
    path.write_text(SOURCE + "# changed\n")
    with pytest.raises(ToolError) as err:
        await edit(ctx, path, "self.name", "self.who")
    assert "more than once" in str(err.value) and "Found 2 matches" in str(err.value)


# ---- near-misses ---------------------------------------------------------------------------------------


async def test_crlf_file_with_lf_old_string(ctx):
    path = await read_file(ctx, SOURCE.replace("\n", "\r\n").encode())
    result = await edit(
        ctx,
        path,
        "    def shout(self):\n        return self.greet().upper()\n",
        "    def shout(self):\n        loud = self.greet().upper()\n        return loud\n",
    )
    data = path.read_bytes()
    assert b"        loud = self.greet().upper()\r\n        return loud\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ending is still CRLF
    assert "CRLF" in result.content


async def test_crlf_kept_when_exact_single_line_edit_adds_lines(ctx):
    path = await read_file(ctx, b"a = 1\r\nb = 2\r\n", "c.py")
    await edit(ctx, path, "a = 1", "a = 1\nz = 26")
    assert path.read_bytes() == b"a = 1\r\nz = 26\r\nb = 2\r\n"


async def test_trailing_whitespace_difference(ctx):
    path = await read_file(ctx, SOURCE.replace("self.name = name\n", "self.name = name   \n"))
    result = await edit(
        ctx,
        path,
        "    def __init__(self, name):\n        self.name = name\n\n    def greet",
        "    def __init__(self, name):\n        self.name = name.strip()\n\n    def greet",
    )
    assert "        self.name = name.strip()\n\n    def greet(self):" in path.read_text()
    assert "trailing whitespace" in result.content and "line 2" in result.content


async def test_uniform_indentation_shift(ctx):
    path = await read_file(ctx, SOURCE)
    result = await edit(
        ctx,
        path,
        'def greet(self):\n    message = "Hello, " + self.name\n    return message',
        'def greet(self):\n    message = "Hello, " + self.name\n    print(message)\n    return message',
    )
    assert (
        '        message = "Hello, " + self.name\n        print(message)\n        return message'
        in path.read_text()
    )
    assert "shifting its indentation by +4 spaces" in result.content


async def test_smart_quotes_and_dashes_keep_the_file_style(ctx):
    text = "TITLE = \u201cYoke \u2014 a harness\u201d\nNOTE = \u2018ok\u2019\n"
    path = await read_file(ctx, text, "doc.py")
    result = await edit(ctx, path, 'TITLE = "Yoke - a harness"', 'TITLE = "Yoke - an agent harness"')
    assert path.read_text() == "TITLE = \u201cYoke \u2014 an agent harness\u201d\nNOTE = \u2018ok\u2019\n"
    assert "look-alikes" in result.content


async def test_pasted_line_numbers_are_removed(ctx):
    path = await read_file(ctx, SOURCE)
    await edit(
        ctx,
        path,
        "9\t    def shout(self):\n10\t        return self.greet().upper()",
        "9\t    def shout(self):\n10\t        return self.greet().lower()",
    )
    assert "return self.greet().lower()" in path.read_text() and "\t" not in path.read_text()


async def test_ambiguous_near_miss_refused_with_context(ctx):
    text = "def a():\n    if ready:\n        go()\n\ndef b():\n    if ready:\n        go()\n"
    path = await read_file(ctx, text, "twice.py")
    with pytest.raises(ToolError) as err:
        await edit(ctx, path, "if ready:\n  go()", "if ready:\n  stop()")
    message = str(err.value)
    assert "matches 2 places" in message and "nothing was changed" in message
    assert "2\t    if ready:" in message and "6\t    if ready:" in message
    assert path.read_text() == text


# ---- creation and validation ---------------------------------------------------------------------------


async def test_empty_old_string_creates_a_new_file(ctx):
    path = ctx.cwd / "pkg" / "new.py"
    result = await edit(ctx, path, "", "print('hi')\n")
    assert path.read_text() == "print('hi')\n" and "created" in result.content
    assert result.data["originalFile"] is None


async def test_empty_old_string_fills_an_empty_file_but_not_a_full_one(ctx):
    empty = await read_file(ctx, "", "empty.py")
    await edit(ctx, empty, "", "x = 1\n")
    assert empty.read_text() == "x = 1\n"
    full = await read_file(ctx, SOURCE)
    with pytest.raises(ToolError, match="Cannot create new file - file already exists."):
        await edit(ctx, full, "", "x")


async def test_validation_messages(ctx):
    path = await read_file(ctx, SOURCE)
    with pytest.raises(ToolError, match="No changes to make"):
        await edit(ctx, path, "greet", "greet")
    with pytest.raises(ToolError, match="File does not exist"):
        await edit(ctx, ctx.cwd / "missing.py", "a", "b")
    nb = ctx.cwd / "n.ipynb"
    nb.write_text("{}")
    with pytest.raises(ToolError, match="NotebookEdit"):
        await edit(ctx, nb, "a", "b")


# ---- MultiEdit -------------------------------------------------------------------------------------


async def multi(ctx: ToolContext, path: Path, edits: list[dict]):
    return await MultiEditTool().run(
        MultiEditInput.model_validate({"file_path": str(path), "edits": edits}), ctx
    )


async def test_multi_edit_applies_in_order(ctx):
    path = await read_file(ctx, SOURCE)
    result = await multi(
        ctx,
        path,
        [
            {"old_string": "class Greeter:", "new_string": "class Welcomer:"},
            {"old_string": "self.name", "new_string": "self.who", "replace_all": True},
            {
                "old_string": "self.who = name",
                "new_string": "self.who = name.title()",
            },  # sees edit 2's result
        ],
    )
    text = path.read_text()
    assert (
        text.startswith("class Welcomer:") and "self.who = name.title()" in text and "self.name" not in text
    )
    assert result.data["originalFileContents"] == SOURCE and len(result.data["edits"]) == 3


async def test_multi_edit_is_all_or_nothing(ctx):
    path = await read_file(ctx, SOURCE)
    with pytest.raises(ToolError) as err:
        await multi(
            ctx,
            path,
            [
                {"old_string": "class Greeter:", "new_string": "class Welcomer:"},
                {"old_string": "def missing(self):", "new_string": "def found(self):"},
            ],
        )
    assert "Edit 2 of 2 failed" in str(err.value) and "String to replace not found" in str(err.value)
    assert path.read_text() == SOURCE


async def test_multi_edit_near_misses_are_forgiven_per_edit(ctx):
    path = await read_file(ctx, SOURCE)
    result = await multi(
        ctx,
        path,
        [
            {
                "old_string": "def shout(self):\n    return self.greet().upper()",
                "new_string": "def shout(self):\n    return 'HI'",
            },
            {"old_string": "class Greeter:", "new_string": "class Greeter(object):"},
        ],
    )
    assert "        return 'HI'" in path.read_text() and "class Greeter(object):" in path.read_text()
    assert "Edit 1: Note" in result.content
