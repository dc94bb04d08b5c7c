"""Rule syntax and matching: Bash patterns, gitignore-style paths, domains, tool names, the parser's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from yoke.permissions.bash_analysis import analyze
from yoke.permissions.patterns import bash_matches, path_matches, path_pattern, tool_name_matches
from yoke.permissions.rules import RuleSyntaxError, parse_rule
from yoke.sandbox.domains import domain_matches, host_allowed

CWD = Path("/work/proj")
HOME = Path("/home/u")


@pytest.mark.parametrize(
    ("spec", "text", "expected"),
    [
        ("npm run build", "npm run build", True),
        ("npm run build", "npm run build --prod", False),
        ("npm run test:*", "npm run test", True),
        ("npm run test:*", "npm run test --watch", True),
        ("npm run test:*", "npm run testx", False),
        ("ls *", "ls", True),
        ("ls *", "lsof", False),
        ("ls*", "lsof", True),
        ("* install", "npm install", True),
        ("git * main", "git push origin main", True),
        ("git * main", "git push origin main2", False),
        ("echo \\*", "echo *", True),
        ("echo \\*", "echo x", False),
        ("a.b", "axb", False),
        ("*", "anything at all", True),
        ("git  diff   *", "git diff HEAD", True),
    ],
)
def test_bash_patterns(spec: str, text: str, expected: bool) -> None:
    assert bash_matches(spec, text) is expected


def rule_path(spec: str, behavior: str = "deny", base: Path = CWD):  # type: ignore[no-untyped-def]
    rule = parse_rule(f"Read({spec})", behavior, "project", base)  # type: ignore[arg-type]
    pattern = path_pattern(rule, CWD, HOME)
    assert pattern is not None
    return pattern


@pytest.mark.parametrize(
    ("spec", "behavior", "path", "expected"),
    [
        ("//etc/hosts", "deny", "/etc/hosts", True),
        ("//etc/**", "deny", "/etc/ssl/certs/x", True),
        ("~/.zshrc", "allow", "/home/u/.zshrc", True),
        ("~/Documents/*.pdf", "allow", "/home/u/Documents/a.pdf", True),
        ("~/Documents/*.pdf", "allow", "/home/u/Documents/sub/a.pdf", False),
        ("/src/**/*.ts", "allow", "/work/proj/src/a/b/c.ts", True),
        ("/src/**/*.ts", "allow", "/src/a.ts", False),
        ("./src/**", "allow", "/work/proj/src/x.py", True),
        ("src/**", "allow", "/work/proj/lib/src/x.py", False),
        ("src/**", "deny", "/work/proj/lib/src/x.py", True),
        (".env", "deny", "/work/proj/a/b/.env", True),
        (".env", "deny", "/elsewhere/.env", True),
        (".env", "allow", "/elsewhere/.env", False),
        ("*.pem", "deny", "/work/proj/certs/server.pem", True),
        ("secrets", "deny", "/work/proj/secrets/key.txt", True),
        ("./secrets/**", "deny", "/work/proj/secretsx/key.txt", False),
        ("./a?c", "deny", "/work/proj/abc", True),
        ("./[ab]c", "deny", "/work/proj/bc", True),
        ("./[!ab]c", "deny", "/work/proj/bc", False),
        ("~", "allow", "/home/u/anything/at/all", True),
    ],
)
def test_path_patterns(spec: str, behavior: str, path: str, expected: bool) -> None:
    assert path_matches(rule_path(spec, behavior), path) is expected


def test_slash_is_relative_to_the_settings_source() -> None:
    user_rule = parse_rule("Read(/notes/**)", "deny", "user", HOME / ".claude")
    pattern = path_pattern(user_rule, CWD, HOME)
    assert pattern is not None
    assert path_matches(pattern, "/home/u/.claude/notes/a")
    assert not path_matches(pattern, "/notes/a")


@pytest.mark.parametrize(
    ("text", "tool", "spec"),
    [
        ("Bash", "Bash", None),
        ("Bash()", "Bash", None),
        ("Bash(*)", "Bash", None),
        ("Bash(npm run test:*)", "Bash", "npm run test:*"),
        ("Bash(echo \\(x\\))", "Bash", "echo (x)"),
        ("mcp__github__get_*", "mcp__github__get_*", None),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
    ],
)
def test_parse_rule(text: str, tool: str, spec: str | None) -> None:
    rule = parse_rule(text, "allow", "cli", CWD)
    assert (rule.tool, rule.specifier) == (tool, spec)


@pytest.mark.parametrize("text", ["", "Bash(", "Bash)", "(x)", "Ba sh", "Bash(x)y"])
def test_parse_rule_errors(text: str) -> None:
    with pytest.raises(RuleSyntaxError):
        parse_rule(text, "allow", "cli", CWD)


def test_tool_names() -> None:
    assert tool_name_matches("mcp__github", {"mcp__github__get_issue"})
    assert not tool_name_matches("mcp__git", {"mcp__github__get_issue"})
    assert tool_name_matches("mcp__github__get_*", {"mcp__github__get_issue"})
    assert tool_name_matches("*", {"Bash"})
    assert tool_name_matches("Task", {"Agent", "Task"})


@pytest.mark.parametrize(
    ("pattern", "host", "port", "expected"),
    [
        ("example.com", "example.com", 443, True),
        ("example.com", "EXAMPLE.COM.", 443, True),
        ("example.com", "a.example.com", 443, False),
        ("*.example.com", "a.example.com", 443, True),
        ("*.example.com", "a.b.example.com", 443, True),
        ("*.example.com", "example.com", 443, False),
        ("*.example.com", "badexample.com", 443, False),
        ("example.com:443", "example.com", 80, False),
        ("example.com:443", "example.com", 443, True),
        ("[::1]:8080", "::1", 8080, True),
        ("*", "anything.org", 1, True),
    ],
)
def test_domains(pattern: str, host: str, port: int, expected: bool) -> None:
    assert domain_matches(pattern, host, port) is expected


def test_denied_domains_win() -> None:
    assert not host_allowed("evil.example.com", 443, ("*.example.com",), ("evil.example.com",))
    assert host_allowed("ok.example.com", 443, ("*.example.com",), ("evil.example.com",))


def test_words_lose_their_quotes() -> None:
    analysis = analyze("""'r'"m" $'\\x2drf' a\\ b "x$HOME" ~/y""")
    words = analysis.invocations[0].words
    assert [w.text for w in words] == ["rm", "-rf", "a b", "x$HOME", "~/y"]
    assert [w.static for w in words] == [True, True, True, False, True]
    assert words[4].tilde and not words[2].tilde


def test_every_simple_command_is_found() -> None:
    command = (
        "a && b || c; d | e & f\n(g); { h; }; $(i); `j`; cat <(k) >(l); x=$(m); if n; then o; fi; p() { q; }"
    )
    names = sorted(inv.name for inv in analyze(command).invocations if inv.words)
    for letter in "abcdefghijklmnoq":  # p is only defined, q is its body
        assert letter in names, letter
