"""Turn a bash command line into the simple commands and redirections it would run, with tree-sitter-bash.

The walker knows a closed set of node types; anything else (a parse error, a construct it does not follow)
is recorded as a problem, and a command with problems is never auto-allowed. Command substitutions,
process substitutions, subshells, function bodies, loop bodies and here-document expansions all contribute
their commands; words keep their literal value where it is static and their source text where it is not.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from yoke.permissions.bash_parse_words import WordReader
from yoke.permissions.bash_values import (
    MAX_LOOP_ITEMS,
    assigned_names,
    local_name,
    source,
)
from yoke.permissions.bash_words import Word

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

MAX_COMMAND_CHARS = 10_000

_STATEMENT_CONTAINERS = frozenset(
    [
        "program",
        "list",
        "pipeline",
        "subshell",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "negated_command",
        "case_item",
    ]
)
_WORDISH = frozenset(
    [
        "word",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "number",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "brace_expression",
    ]
)
_WRITE_OPS = frozenset({">", ">>", "&>", "&>>", ">|", "<>", ">&"})
_READ_OPS = frozenset({"<", "<&"})


@dataclass(slots=True)
class Redirect:
    op: str
    target: Word | None  # None for fd duplications (2>&1) and here-strings
    fd: str | None = None

    @property
    def writes(self) -> bool:
        return self.op in _WRITE_OPS and self.target is not None

    @property
    def reads(self) -> bool:
        return self.op in _READ_OPS and self.target is not None


@dataclass(slots=True)
class SimpleCommand:
    """A command as the shell runs it: leading assignments, argv words."""

    kind: str  # "command", "assignment", "declaration", "unset", "test", "arith", "loop"
    words: list[Word] = field(default_factory=list)
    assignments: list[tuple[str, Word]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass(slots=True)
class ParsedCommand:
    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)  # names defined in the command itself
    problems: list[str] = field(default_factory=list)  # why the command cannot be fully analysed
    expansions: bool = False  # some word anywhere (here-documents included) is expanded at run time


@functools.lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def parse_bash(command: str) -> ParsedCommand:
    """Parse `command`; problems are listed, never raised."""
    result = ParsedCommand()
    if len(command) > MAX_COMMAND_CHARS:
        result.problems.append(f"the command is longer than {MAX_COMMAND_CHARS:,} characters")
        return result
    if "\0" in command:
        result.problems.append("the command contains a NUL character")
        return result
    try:
        tree = _parser().parse(command.encode("utf-8", "surrogatepass"))
    except (ImportError, OSError) as exc:  # pragma: no cover - missing optional parser
        result.problems.append(f"the bash parser is unavailable ({exc})")
        return result
    root = tree.root_node
    if root.has_error:
        result.problems.append("the command could not be parsed")
        return result
    _Walker(result, assigned_names(root)).statements(root)
    return result


class _Walker(WordReader):
    def __init__(self, result: ParsedCommand, assigned: dict[str, int] | None = None) -> None:
        self.out = result
        self.backtick_depth = 0
        self.assigned = assigned or {}  # how often each variable is set anywhere in the line
        self.bindings: dict[str, Word] = {}  # loop variables, while their body is walked (bash_values)
        self.locals: set[str] = set()  # line locals assigned so far

    def problem(self, text: str) -> None:
        if text not in self.out.problems:
            self.out.problems.append(text)

    # statements ---------------------------------------------------------------------------------------

    def statements(self, node: Node) -> None:
        for child in node.named_children:
            self.statement(child)

    def statement(self, node: Node) -> None:
        kind = node.type
        if kind == "comment":
            return
        if kind in _STATEMENT_CONTAINERS:
            self.statements(node)
        elif kind == "command":
            self.command(node)
        elif kind == "redirected_statement":
            self.redirected(node)
        elif kind == "compound_statement":
            self.compound(node)
        elif kind in ("variable_assignment", "variable_assignments"):
            self.assignments_only(node)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "unset_command":
            words = [Word(node.children[0].type)] + [self.word(c) for c in node.named_children]
            self.out.commands.append(SimpleCommand("unset", words))
        elif kind == "test_command":
            self.expression("test", node)
        elif kind in ("for_statement", "c_style_for_statement"):
            self.loop(node)
        elif kind == "case_statement":
            self.case(node)
        elif kind == "function_definition":
            self.function(node)
        elif kind in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
            self.redirect(node)  # `$(<file)`
        elif kind in _WORDISH:
            self.word(node)  # e.g. a bare `$(cmd)` statement
        else:
            self.problem(f"unsupported shell construct `{kind}`")

    def command(self, node: Node) -> None:
        cmd = SimpleCommand("command")
        for child in node.named_children:
            kind = child.type
            if kind == "variable_assignment":
                cmd.assignments.append(self.assignment(child))
            elif kind == "command_name":
                if child.named_child_count != 1:
                    self.problem("a command name the analyser cannot read")
                    return
                cmd.words.append(self.word(child.named_children[0]))
            elif kind in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                self.redirect(child)
            elif kind in _WORDISH or kind in ("regex", "extglob_pattern"):
                cmd.words.append(self.word(child))
            elif kind == "comment":
                continue
            else:
                self.problem(f"unsupported shell construct `{kind}` in a command")
        if not cmd.words and cmd.assignments:
            cmd.kind = "assignment"
        self.out.commands.append(cmd)

    def redirected(self, node: Node) -> None:
        for child in node.named_children:
            if child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                self.redirect(child)
            else:
                self.statement(child)

    def compound(self, node: Node) -> None:
        first = node.children[0].type if node.children else ""
        if first == "((":
            self.expression("arith", node)
        else:
            self.statements(node)

    def assignments_only(self, node: Node) -> None:
        nodes = node.named_children if node.type == "variable_assignments" else [node]
        cmd = SimpleCommand("assignment", assignments=[self.assignment(n) for n in nodes])
        top = node.parent is not None and node.parent.type == "program"
        if top and all(
            local_name(name) and self.assigned.get(name) == 1 and (value.static or value.derived)
            for name, value in cmd.assignments
        ):
            cmd.kind = "local"  # a line local (bash_values): setting it changes nothing else
            self.locals.update(name for name, _ in cmd.assignments)
        self.out.commands.append(cmd)

    def declaration(self, node: Node) -> None:
        cmd = SimpleCommand("declaration", [Word(source(node.children[0]))])
        for child in node.named_children:
            if child.type == "variable_assignment":
                cmd.assignments.append(self.assignment(child))
            elif child.type == "variable_name":
                cmd.words.append(Word(source(child)))
            else:
                cmd.words.append(self.word(child))
        self.out.commands.append(cmd)

    def expression(self, kind: str, node: Node) -> None:
        """`[[ ]]` and `(( ))`: record their words; any expansion inside makes them not read-only."""
        dynamic = False
        for sub in _descendants(node):
            if sub.type in ("command_substitution", "process_substitution"):
                self.word(sub)
                dynamic = True
            elif sub.type in ("simple_expansion", "expansion", "arithmetic_expansion"):
                dynamic = True
        self.out.expansions = self.out.expansions or dynamic
        self.out.commands.append(SimpleCommand(kind, [Word(source(node), static=not dynamic)]))

    def loop(self, node: Node) -> None:
        # A loop sets its variable (`for PATH in …`) without an assignment word: never read-only, unless
        # it is a loop over a few known words whose body can be walked once per word (bash_values).
        if self.static_loop(node):
            return
        kind = "arith" if node.type == "c_style_for_statement" else "loop"
        self.out.commands.append(SimpleCommand(kind, [Word(source(node.children[0]))]))
        for child in node.named_children:
            if child.type == "do_group":
                self.statements(child)
            elif child.type == "compound_statement":
                self.compound(child)
            elif child.type == "variable_name":
                continue
            elif child.type in _WORDISH:
                self.word(child)
            else:
                self.expression("arith", child)

    def static_loop(self, node: Node) -> bool:
        """`for f in WORDS; do BODY; done` with literal or glob WORDS and `f` a local set nowhere else: BODY
        walked once per word with `$f` bound to it. False (nothing recorded) when it is not one."""
        if node.type != "for_statement" or not node.children or node.children[0].type != "for":
            return False
        named = node.named_children
        name = source(named[0]) if named and named[0].type == "variable_name" else ""
        items = [c for c in named[1:] if c.type in _WORDISH]
        body = [c for c in named[1:] if c.type in ("do_group", "compound_statement")]
        if not (local_name(name) and self.assigned.get(name) == 1 and len(body) == 1):
            return False
        if not 1 <= len(items) <= MAX_LOOP_ITEMS or len(items) + 2 != len(named):
            return False
        probe = _Walker(ParsedCommand(), self.assigned)
        probe.bindings, probe.locals = dict(self.bindings), set(self.locals)
        values = [probe.word(c) for c in items]
        if probe.out.problems or probe.out.commands or not all(v.static and not v.brace for v in values):
            return False
        self.out.commands.append(SimpleCommand("forin", [Word("for")]))
        saved = self.bindings.get(name)
        for value in values:
            self.bindings[name] = value
            self.statements(body[0]) if body[0].type == "do_group" else self.compound(body[0])
        if saved is None:
            self.bindings.pop(name, None)
        else:
            self.bindings[name] = saved
        return True

    def case(self, node: Node) -> None:
        for child in node.named_children:
            if child.type == "case_item":
                for sub in child.named_children:
                    if sub.type in _WORDISH or sub.type == "extglob_pattern":
                        self.word(sub)
                    else:
                        self.statement(sub)
            else:
                self.word(child)

    def function(self, node: Node) -> None:
        named = node.named_children
        if named and named[0].type == "word":
            self.out.functions.append(source(named[0]))
        for child in named[1:]:
            self.statement(child)

    def assignment(self, node: Node) -> tuple[str, Word]:
        named = node.named_children
        name = source(named[0]) if named else ""
        if named and named[0].type == "subscript":
            self.word(named[0])  # a[$(cmd)]=x runs cmd
            name = source(named[0].named_children[0]) if named[0].named_children else name
        value = Word("")
        for child in named[1:]:
            if child.type == "array":
                parts = [self.word(c) for c in child.named_children]
                value = Word(" ".join(p.text for p in parts), static=all(p.static for p in parts))
            else:
                value = self.word(child)
        return name, value

    # redirections -------------------------------------------------------------------------------------

    def redirect(self, node: Node) -> None:
        if node.type == "herestring_redirect":
            for child in node.named_children:
                self.word(child)
            return
        if node.type == "heredoc_redirect":
            self.heredoc(node)
            return
        fd = None
        op = ""
        targets: list[Word] = []
        for child in node.children:
            if child.type == "file_descriptor":
                fd = source(child)
            elif not child.is_named:
                op = child.type
            elif child.type == "number" and op in (">&", "<&"):
                continue  # 2>&1: a descriptor, not a file
            else:
                targets.append(self.word(child))
        if len(targets) > 1:
            self.problem("a redirection followed by extra words")
            return
        self.out.redirects.append(Redirect(op, targets[0] if targets else None, fd))

    def heredoc(self, node: Node) -> None:
        quoted = False
        for child in node.named_children:
            kind = child.type
            if kind == "heredoc_start":
                quoted = any(q in source(child) for q in ("'", '"', "\\"))
            elif kind == "heredoc_body":
                if not quoted:
                    self.heredoc_body(child)
            elif kind == "heredoc_end":
                continue
            elif kind in ("file_redirect", "herestring_redirect"):
                self.redirect(child)
            else:
                self.statement(child)  # the rest of the line: `cat <<EOF | grep x > out`

    def heredoc_body(self, node: Node) -> None:
        if "`" in source(node):
            self.problem("backquotes inside a here-document")
        if "$" in source(node):
            self.out.expansions = True  # an unquoted here-document expands `$x`, `$((x))`, `$(cmd)`
        for sub in node.named_children:
            if sub.type in ("command_substitution", "expansion", "arithmetic_expansion"):
                self.word(sub)


def _descendants(node: Node) -> list[Node]:
    out = []
    stack = list(node.named_children)
    while stack:
        sub = stack.pop()
        out.append(sub)
        if sub.type not in ("command_substitution", "process_substitution"):
            stack.extend(sub.named_children)
    return out
