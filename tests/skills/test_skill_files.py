"""Reading skill files: frontmatter (flat and YAML), fields, substitutions, the catalog and the listing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from yoke.skills.catalog import load_catalog
from yoke.skills.frontmatter import parse_frontmatter
from yoke.skills.model import skill_from_fields
from yoke.skills.substitute import Substitution, substitute
from yoke.skills.tool import listing


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill(body: str, **meta):
    return skill_from_fields(meta, body, path=Path("/s/x/SKILL.md"), name="x", kind="skill", source="user")


@pytest.mark.parametrize(
    "head",
    [
        "name: a\ndescription: Does things: well\n",  # ': ' inside a plain value needs real YAML rules
        "description: >\n  folded\n  text\n",
        "hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n",
        "allowed-tools:\n  - Read\n  - Bash(git:*)\ndisable-model-invocation: true\nversion: 2\n",
    ],
)
def test_flat_reader_agrees_with_yaml(head):
    import yaml

    try:
        expected = yaml.safe_load(head)
    except yaml.YAMLError:  # Claude Code quotes the value and reads it again
        expected = {"name": "a", "description": "Does things: well"}
    fields, body = parse_frontmatter(f"---\n{head}---\nbody\n")
    assert fields == expected and body == "body\n"


def test_flat_frontmatter_does_not_import_yaml():
    sys.modules.pop("yaml", None)
    fields, _ = parse_frontmatter(
        "---\nname: a\ndescription: 'quoted'\nuser-invocable: false\npaths: [a, b]\n---\n"
    )
    assert fields == {"name": "a", "description": "quoted", "user-invocable": False, "paths": ["a", "b"]}
    assert "yaml" not in sys.modules


def test_frontmatter_yaml_cannot_read_is_read_as_claude_code_reads_it():
    # a value YAML misreads is quoted and read again
    assert parse_frontmatter("---\ndescription: [unclosed\n---\nB")[0] == {"description": "[unclosed"}
    hint = "---\nargument-hint: [name] | setup | status\nmodel: haiku\n---\n"
    assert parse_frontmatter(hint)[0] == {"argument-hint": "[name] | setup | status", "model": "haiku"}
    # a list stays a list; YAML 1.2: `yes` is text, dates are text
    assert parse_frontmatter("---\nargument-hint: [a, b]\nx: yes\nd: 2024-01-02\n---\n")[0] == {
        "argument-hint": ["a", "b"],
        "x": "yes",
        "d": "2024-01-02",
    }
    # beyond repair: no frontmatter, the body still loads; never closed: all of it is the body
    assert parse_frontmatter("---\na: b\n  c: [\n- d\n---\nbody") == ({}, "body")
    assert parse_frontmatter("---\nname: a\n") == ({}, "---\nname: a\n")


def test_fields_of_an_unexpected_type_never_refuse_the_file():
    assert skill("b", context="sideways").context == "inline"
    assert skill("b", **{"disable-model-invocation": "maybe"}).disable_model_invocation is False
    assert skill("b", **{"argument-hint": ["name", "flags"]}).argument_hint == "name,flags"
    assert skill("b", description=["a", "list"]).description == "b"
    assert skill("b", description=3.0, effort="loud", shell="zsh").description == "3"
    s = skill("# First line\nstill first.\n\nSecond.", **{"allowed-tools": "Bash(git add *) Read, Edit"})
    assert s.allowed_tools == ["Bash(git add *)", "Read", "Edit"]
    assert s.description == "First line"


def test_substitutions():
    s = skill(
        "a=$ARGUMENTS[0] b=$1 name=$who all=$ARGUMENTS esc=\\$1 dir=${CLAUDE_SKILL_DIR} "
        "p=${param.branch} e=${env.HOME_X|none} k=${env.MY_API_KEY|hidden}",
        arguments=["who"],
        parameters={"branch": "${env.BRANCH_X|main}"},
    )
    env = {"HOME_X": "/h", "MY_API_KEY": "sk-secret", "BRANCH_X": ""}
    out = substitute(s, Substitution(args='"Ann Lee" two', session_id="sid", env=env))
    assert out == ('a=Ann Lee b=two name=Ann Lee all="Ann Lee" two esc=$1 dir=/s/x p=main e=/h k=hidden')
    assert (
        substitute(skill("No placeholders."), Substitution(args="x y"))
        == "No placeholders.\n\nARGUMENTS: x y"
    )
    given = skill("${param.branch}", parameters={"branch": "${param.branch|main}"})
    assert substitute(given, Substitution(args="branch=dev")) == "dev"


def test_catalog_precedence_and_nested(tmp_path):
    home, project = tmp_path / "home", tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "YOKE_HOME": str(home / ".yoke")}
    write(home / ".claude/skills/deploy/SKILL.md", "---\ndescription: personal\n---\nP")
    write(project / ".claude/skills/deploy/SKILL.md", "---\ndescription: project\n---\nQ")
    write(project / ".claude/commands/deploy.md", "command")
    write(project / ".claude/commands/lint.md", "---\ndescription: lint\n---\nL")
    write(home / ".yoke/skills/yk/SKILL.md", "Y")
    write(project / "sub/.claude/skills/deploy/SKILL.md", "---\ndescription: nested\n---\nN")
    write(project / ".claude/skills/ts-only/SKILL.md", "---\ndescription: ts\npaths: ['src/**/*.ts']\n---\nT")
    extra = write(tmp_path / "extra/.claude/skills/added/SKILL.md", "A").parent.parent.parent.parent
    catalog = load_catalog(project / "sub", env=env, add_dirs=[extra], managed_dir=tmp_path / "none")
    assert catalog.get("deploy").description == "personal"
    assert catalog.get("lint").kind == "command" and catalog.get("yk") and catalog.get("added")
    assert catalog.get("ts-only") is None
    activated = catalog.skills_for_path(project / "src/a/b.ts")
    assert [s.name for s in activated] == ["ts-only"]
    top = load_catalog(project, env=env, managed_dir=tmp_path / "none")
    nested = top.skills_for_path(project / "sub/file.py")
    assert [s.name for s in nested] == ["sub:deploy"] and top.skills_for_path(project / "sub/other.py") == []


def test_listing_stays_within_budget():
    skills = [skill("b", description="word " * 80) for _ in range(60)]
    for i, s in enumerate(skills):
        s.name = f"skill-{i:02d}"
    full = listing(skills[:3], 8000)
    assert full.count("\n") == 2 and all(line.endswith("word") for line in full.splitlines())  # whole
    squeezed = listing(skills, 8000)
    assert len(squeezed) <= 8000 and squeezed.count("- skill-") == 60
    assert listing(skills, 1000).splitlines()[0] == "- skill-00"  # names only
    names_only = listing(skills, 500)
    assert len(names_only) <= 500 and "more skills not listed" in names_only


def test_yaml_results_are_cached_by_content(tmp_path):
    import subprocess

    write(
        tmp_path / "repo/.claude/skills/h/SKILL.md",
        "---\ndescription: d\nhooks:\n  Stop:\n    - hooks: []\n---\nB",
    )
    env = {
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home/.claude"),
        "YOKE_HOME": str(tmp_path / "home/.yoke"),
    }
    code = (
        "import sys; from pathlib import Path; from yoke.skills.catalog import load_catalog; "
        f"c = load_catalog(Path({str(tmp_path / 'repo')!r}), env={env!r}, managed_dir=Path('/nonexistent')); "
        "print(c.get('h').hooks, c.get('h').description, 'yaml' in sys.modules)"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True) for _ in range(2)]
    assert [r.stdout.strip() for r in runs] == [
        "{'Stop': [{'hooks': []}]} d True",
        "{'Stop': [{'hooks': []}]} d False",
    ], runs[0].stderr
    write(tmp_path / "repo/.claude/skills/h/SKILL.md", "---\ndescription: e\nhooks:\n  Stop: []\n---\nB")
    changed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
    assert changed == "{'Stop': []} e True"


# What Claude Code 2.1.330 listed for a command with this frontmatter and the body "body" (run on 2026-11-25)
CLAUDE_CODE_READS = [
    ("description: first\ndescription: second\n", "second"),
    ("description: tabbed\n\tfoo: bar\n", "body"),
    ("description: foo # comment\n", "foo"),
    ('description: "unterminated\n', "body"),
    ("description: 'it''s'\n", "it's"),
    ("description: line one\n  line two\n", "line one line two"),
    ("description: >-\n  folded\n  text\n", "folded text"),
    ("description:\n  - item1\n  - item2\n", "body"),
    ("description: a --- b\n", "a"),
    ("description: @mention the user\n", "@mention the user"),
    ("description:foo\n", "body"),
    ("description: [a, b]\n", "body"),
    ("description: {a: 1}\n", "body"),
    ("description: yes\n", "yes"),
    ("description: 2024-01-01\n", "2024-01-01"),
    ("description: 0x1F\n", "31"),
    ("description: 1e3\n", "1000"),
    ("description: 1.50\n", "1.5"),
    ("description: 0o17\n", "15"),
    ("description: 012\n", "12"),
    ("description: .inf\n", "Infinity"),
    ("description: 12:30\n", "12:30"),
    ("description: ~\n", "body"),
    ("description: !important note\n", "note"),
    ('description: "quoted: fine" trailing\n', '"quoted: fine" trailing'),
    ("allowed-tools:\n  - Read\n   - Bash\ndescription: w desc: x\n", "w desc: x"),
    ("description: a: b: c\nname: [x\n", "a: b: c"),
]


@pytest.mark.parametrize(("head", "listed"), CLAUDE_CODE_READS)
def test_descriptions_read_as_claude_code_reads_them(head, listed):
    meta, body = parse_frontmatter(f"---\n{head}---\nbody\n")
    assert (
        skill_from_fields(
            meta, body, path=Path("/c/x.md"), name="x", kind="command", source="project"
        ).description
        == listed
    )


def test_crlf_frontmatter_is_not_repaired_as_claude_code_does_not(tmp_path):
    from yoke.skills.frontmatter import read_markdown

    path = tmp_path / "c.md"
    path.write_bytes(b"---\r\ndescription: crlf: yes\r\n---\r\nbody j\r\n")
    assert parse_frontmatter(read_markdown(path)) == ({}, "body j\n")
    path.write_bytes(b"---\r\ndescription: plain\r\n---\r\nbody\r\n")
    assert parse_frontmatter(read_markdown(path))[0] == {"description": "plain"}


def test_agent_files_as_claude_code_takes_them(tmp_path):
    from yoke.agents.definitions import parse_agent_file

    cases = {
        "dots.md": (
            "---\nname: Mixed.Case_v2\ndescription: d\ntools: Read Bash(git log:*)\n---\nB",
            ["Read", "Bash(git log:*)"],
        ),
        "star.md": ('---\nname: star\ndescription: d\ntools: "*"\n---\nB', None),
        "empty.md": ("---\nname: empty\ndescription: d\ntools:\n---\nB", []),
        "absent.md": ("---\nname: absent\ndescription: d\n---\nB", None),
    }
    for file, (text, tools) in cases.items():
        warnings: list[str] = []
        definition = parse_agent_file(write(tmp_path / file, text), "project", warnings)
        assert definition is not None and definition.tools == tools and warnings == []
    refused = {
        "num.md": "---\nname: 123\ndescription: d\n---\nB",
        "dash.md": "---\nname: -dash\ndescription: d\n---\nB",
        "colon.md": "---\nname: a:b\ndescription: d\n---\nB",
        "nodesc.md": "---\nname: wtu\nwhen_to_use: only this\n---\nB",
        "crlf.md": "---\r\nname: crlf\r\ndescription: Use it when: x\r\n---\r\nB",
    }
    for file, text in refused.items():
        path = tmp_path / file
        path.write_bytes(text.encode())
        assert parse_agent_file(path, "project", []) is None
    warnings = []
    assert parse_agent_file(write(tmp_path / "notes.md", "plain notes"), "project", warnings) is None
    assert warnings == []


def test_the_listing_escapes_angle_brackets_as_claude_code_does():
    s = skill("b", description='a <b> & c > d "q"')
    assert listing([s], 8000) == '- x: a &lt;b&gt; & c &gt; d "q"'
