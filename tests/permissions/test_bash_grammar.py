"""Property-style: command lines generated from a grammar of bash constructs.

For every generated line the analyser must never raise, and must never call it read-only unless every piece
came from the safe subset (a known command shape with literal words). Separately, words generated from
bash's quoting forms must read the same to the analyser as to bash itself (`printf '%s\\0' WORD`, run in an
empty folder with a bare environment; the only command substitution the grammar contains is a harmless
`echo`, so a probe can never do anything even if the analyser misjudged it).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from yoke.permissions.bash_analysis import analyze, is_read_only_command
from yoke.permissions.bash_parse import parse_bash

SEED = 17
COUNT = 1500

SAFE = [
    "ls -la src",
    "cat README.md",
    "grep -n foo src/app.py",
    "git status",
    "git log --oneline -n 5",
    "wc -l src/app.py",
    "head -n 3 README.md",
    "echo hi",
    "pwd",
    "sort README.md",
    "find src -name '*.py'",
    "LC_ALL=C sort README.md",
    "timeout 5 ls",
    "[[ -f README.md ]]",
    "test -f README.md",
    "set -euo pipefail",
    "cd src",
    "diff README.md src/app.py",
    "jq . data.json",
    # provably safe since issue 28 (permissions/bash_values.py): literal arithmetic, substitutions of
    # read-only commands as text, a line local, a loop over known words with a read-only body
    "echo $((1+2))",
    "echo $(echo hi)",
    "echo `echo hi`",
    "x=1",
    'for f in src/*.py; do wc -l "$f"; done',
]
UNSAFE = {
    "expansion": [
        "echo $X",
        "cat ${X}",
        "echo ${X:-y}",
        "echo ${X:=y}",
        "echo \"${X:-'a'}\"",
        "cat <(echo hi)",
        "echo ${!X}",
        "echo ${X@P}",
        "echo $'\\UFFFFFFFF'",
        "cat ~root/x",
        'echo "$@"',
        "cat <<EOF\n$X\nEOF",
        "echo $'\\xff'",
        "echo $((x+1))",
        "echo $((1/0))",
        "echo $((1--2))",
        "cat $(echo README.md)",
        "printf $(echo hi)",
        "for f in *; do cat $f; done",
        'for f in ~/.ssh/*; do cat "$f"; done',
        "for f in ~; do cat $f/.ssh/id_rsa; done",
        'for f in ~; do cat "$f/.ssh/id_rsa"; done',
        'for f in src/*.py; do cat "x$f"; done',
    ],
    "arithmetic": [
        "(( x ))",
        "[[ x -eq 0 ]]",
        "let x=1",
        "declare -i x=1",
        "test -v x",
        "[ -v x ]",
        "[[ -v x ]]",
        "for ((i=0;i<1;i++)); do ls; done",
    ],
    "sets-variables": [
        "printf -v x hi",
        "read x",
        "for PATH in /tmp; do ls; done",
        "export BASH_ENV=/tmp/x",
        "declare x=1",
        "local x",
        "readonly x",
        "mapfile x",
        "getopts a x",
        "PATH=/tmp",
        'for f in a; do f=b; cat "$f"; done',
        "x=1 && echo $x",
        "for f in README.md; do cat $f; done; echo $f",
        "for http_proxy in x; do ls; done",
        "unset x",
        "set -x",
        "set -k",
        "set +B",
        "select x in a; do ls; done",
        "IFS=/ ls",
        "shopt -s extglob",
        "cd -",
    ],
    "wrapper": [
        "bash -c 'ls'",
        "sh -c ls",
        "eval ls",
        "env ls",
        "command ls",
        "builtin echo hi",
        "exec ls",
        "xargs ls",
        "sudo ls",
        "trap ls EXIT",
        "source x",
        ". x",
        "nice -n 5 env ls",
        "time bash -c ls",
    ],
    "alias-function": ["alias ls=rm", "f() { ls; }", "function g { ls; }", "unalias ls"],
    "unknown-option": [
        "sort -o x README.md",
        "git grep -O foo",
        "git blame --contents x README.md",
        "git diff --output=x",
        "sort --files0-from=x",
        "tar --checkpoint-action=exec=sh -cf x y",
        "find . -fprintf x y",
        "git remote show https://x",
        "awk 'BEGIN{system(\"id\")}'",
        "ls --hyperlink",
        "rg --pre x foo",
        "rg -z foo",
        "diff -l a b",
        "jq -n env",
        "jq '$ENV' f",
        "printenv",
        "set",
        "declare -p",
        "env",
        "git -c core.pager=x log",
        "sed -n w/tmp/x README.md",
        "tree -o x",
        "git log --ext-diff",
        "grep --include=x -R foo .",
        "date -s 1",
        "hostname evil",
        "find -L . -name x",
        "xxd a b",
        "cat -X README.md",
        "git status --unknown",
        "wc --files0-from=x",
        "sort --compress-program=sh a",
    ],
    "write": ["echo x > out", "ls >> out", "ls 2> err", "ls &> out", "ls >| out", "cat <> out"],
}
JOINERS = ["; ", " && ", " || ", " | ", "\n"]


def _flatten() -> list[tuple[str, str]]:
    return [(kind, piece) for kind, pieces in UNSAFE.items() for piece in pieces]


def _compose(rng: random.Random, piece: str) -> str:
    form = rng.randrange(6)
    if form == 0:
        return f"( {piece} )"
    if form == 1:
        return "{ " + piece + "; }"
    if form == 2:
        return f"if true; then {piece}; fi"
    if form == 3:
        return f"while false; do {piece}; done"
    return piece


def generate(rng: random.Random) -> tuple[str, bool]:
    """A command line and whether it is made only of safe pieces."""
    pieces: list[str] = []
    safe = True
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.45:
            pieces.append(_compose(rng, rng.choice(SAFE)))
        else:
            _, piece = rng.choice(_flatten())
            pieces.append(_compose(rng, piece))
            safe = False
    line = pieces[0]
    for piece in pieces[1:]:
        joiner = rng.choice(JOINERS)
        line += joiner + piece
    return line, safe


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("grammar")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("foo\n")
    (root / "README.md").write_text("# r\n")
    (root / "data.json").write_text("{}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def test_every_unsafe_piece_alone_is_not_read_only(world: Path) -> None:
    for kind, piece in _flatten():
        assert not is_read_only_command(piece, world, [world], home=world / "home"), (kind, piece)


def test_every_safe_piece_alone_is_read_only(world: Path) -> None:
    for piece in SAFE:
        assert is_read_only_command(piece, world, [world], home=world / "home"), piece


def test_generated_lines_are_read_only_only_when_made_of_safe_pieces(world: Path) -> None:
    rng = random.Random(SEED)
    read_only = safe_total = 0
    for _ in range(COUNT):
        line, safe = generate(rng)
        parse_bash(line)  # never raises
        verdict = is_read_only_command(line, world, [world], home=world / "home")
        if verdict:
            assert safe, f"called read-only but contains an unsafe piece: {line!r}"
            read_only += 1
        safe_total += safe
    # Not useless either: most lines made only of safe pieces stay on the fast path.
    assert safe_total > 20 and read_only >= safe_total * 0.6, (read_only, safe_total)


def test_random_bytes_never_raise() -> None:
    rng = random.Random(SEED)
    alphabet = "$'\"\\`(){}[]<>|&;!*?~=#% \n\tabcxU0F-+@:,."
    for _ in range(3000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        analysis = analyze(line)  # must not raise
        assert isinstance(analysis.problems, list)


# ---- words: the analyser reads what bash reads ------------------------------------------------------------

WORD_PIECES = [
    "abc",
    "'sq'",
    '"dq"',
    '"a\\"b"',
    "a\\ b",
    "$'a\\tb'",
    "$'\\x41'",
    "$'\\101'",
    "'a'\"b\"c",
    '"\\$"',
    "\\'",
    '"it\'s"',
    "$'\\''",
    '"a\\nb"',
    "$'\\u00e9'",
    "$'\\UFFFFFFFF'",
    "$'\\c'",
    "\\\\",
    '"\\\\"',
    "x\\y",
    "$'\\e'",
    '"$(echo hi)"',
    "$X",
    "${X:-'q'}",
    "\"${X:-'q'}\"",
    "a=b",
    "--opt",
    "é",
    "$'\\0'",
    "''",
    '""',
    "\\$HOME",
    "'$HOME'",
    "$'\\777'",
]


def _bash_words(word: str, cwd: Path) -> list[str] | None:
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", f"printf '%s\\0' {word}"],
        capture_output=True, cwd=cwd, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"},
        timeout=10,
    )  # fmt: skip
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


def test_words_agree_with_bash(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    words = {"".join(rng.choice(WORD_PIECES) for _ in range(rng.randint(1, 3))) for _ in range(250)} | set(
        WORD_PIECES
    )
    compared = 0
    for word in sorted(words):
        analysis = analyze(f"printf '%s\\0' {word}")
        if not analysis.analysable or not analysis.invocations:
            continue
        args = analysis.invocations[0].words[2:]
        if not args or not all(a.static and not (a.glob or a.brace or a.tilde) for a in args):
            continue  # the analyser does not claim to know these words: nothing to compare
        expected = _bash_words(word, tmp_path)
        assert expected is not None, word
        assert [a.text for a in args] == expected, word
        compared += 1
    assert compared > 60
