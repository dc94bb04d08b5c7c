"""`$1`, `$5`, `$30` in a command's body: filled when that many arguments were given, left as written
otherwise (an awk program, a price), and the arguments appended as `ARGUMENTS: …` when nothing was filled
in. Each case below was generated and run through the bundled Claude Code (2.1.332) as `/t ARGS` against
the scripted server; the expected text is the body its request carried (trailing blank space aside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yoke.skills.model import skill_from_fields
from yoke.skills.substitute import Substitution, substitute

CASES = [
    # (frontmatter fields, body, args, what 2.1.332 sent)
    ({}, "A price $5 and $1 and $30 here.", "alpha beta", "A price $5 and beta and $30 here."),
    ({}, "A price $5 and $1 and $30 here.", "", "A price $5 and $1 and $30 here."),
    (
        {"argument-hint": "<file> <mode>"},
        "A price $5 and $1 here.",
        "alpha beta",
        "A price $5 and beta here.",
    ),
    (
        {},
        "all: $ARGUMENTS; first $1 second $2; price $5.",
        "alpha beta",
        "all: alpha beta; first beta second $2; price $5.",
    ),
    ({}, "all: $ARGUMENTS; first $1 second $2; price $5.", "", "all: ; first $1 second $2; price $5."),
    (
        {},
        "run:\n```\nawk '{print $1}' f\n```\nend",
        "alpha beta",
        "run:\n```\nawk '{print beta}' f\n```\nend",
    ),
    ({}, "run:\n```\nawk '{print $1}' f\n```\nend", "", "run:\n```\nawk '{print $1}' f\n```\nend"),
    ({}, "braced ${1} and $ARGUMENTS[0] and $ARGUMENTS[1]", "alpha beta", "braced ${1} and alpha and beta"),
    ({}, "braced $ARGUMENTS[0] and $ARGUMENTS[1]", "", "braced $ARGUMENTS[0] and $ARGUMENTS[1]"),
    ({}, "Just text.", "alpha beta", "Just text.\n\nARGUMENTS: alpha beta"),
    ({}, "A price of $5 only.", "alpha beta", "A price of $5 only.\n\nARGUMENTS: alpha beta"),
    ({}, "item $ARGUMENTS[5] here", "alpha beta", "item $ARGUMENTS[5] here\n\nARGUMENTS: alpha beta"),
    ({}, "cost \\$1 and $9", "alpha beta", "cost $1 and $9\n\nARGUMENTS: alpha beta"),
    ({}, "value $1 and $ARGUMENTS end", "", "value $1 and  end"),
    ({"arguments": ["file", "mode"]}, "file $file mode $mode", "alpha", "file alpha mode"),
    ({"arguments": ["file", "mode"]}, "file $file mode $mode", "", "file  mode"),
    ({}, "a $ARGUMENTS[1] b $ARGUMENTS[0]x $0", "alpha beta", "a beta b alphax alpha"),
]


@pytest.mark.parametrize(("meta", "body", "args", "sent"), CASES)
def test_positional_arguments_as_claude_code_fills_them(meta, body, args, sent):
    skill = skill_from_fields(meta, body, path=Path("/p/.claude/commands/t.md"), name="t", kind="command",
                              source="project")  # fmt: skip
    assert substitute(skill, Substitution(args=args)).rstrip() == sent.rstrip()
