"""Values the analyser can know although bash computes them: what makes some loops, arithmetic and
substitutions provably safe (issue 28, class 9).

* **Line locals.** A lowercase variable assigned exactly once in the line, by a statement of its own at the
  top level (`x=$(git rev-parse --short HEAD); echo $x`), holds text the line itself produced: it cannot
  change which program runs (no `PATH`, `IFS`, proxy or other environment name), and no other command of
  the line sets it. Its expansions are *derived* words: unknown text, accepted only where text is harmless
  (the arguments of `echo`), never as a path, a command name or a redirection.
* **Loop variables.** `for f in WORDS; do BODY; done` over a few literal or glob words, with `f` set
  nowhere else, runs BODY once per word: the analyser walks BODY once per word with `$f` bound to it.
  Quoted, `"$f"` of a glob word is each file it matches, which is what the glob word itself names;
  unquoted, only a literal without blanks or glob characters is the same word after splitting.
* **Literal arithmetic.** `$((1+2))` with numbers and operators only has no side effect and one value.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_LOOP_ITEMS = 16
_LOCAL = re.compile(r"^[a-z_][a-z0-9_]*$")
_REFERENCE = re.compile(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$")
_ARITH = re.compile(r"^\$\(\(([0-9+\-*/%() \t]{1,200})\)\)$")
_INT64 = 1 << 64


def local_name(name: str) -> bool:
    """A name that is only ever a shell local: lowercase, and not one programs read (`http_proxy`)."""
    return bool(_LOCAL.match(name)) and not name.endswith("_proxy") and name != "cdpath"


def source(node: Node) -> str:
    """The node's text as written (the tree is parsed from the line's bytes, so it is always there)."""
    text = node.text
    return text.decode() if text is not None else ""


def assigned_names(root: Node) -> Counter[str]:
    """How many times each variable is given a value anywhere in the line: assignments (also inside
    declarations and substitutions) and `for` variables."""
    counts: Counter[str] = Counter()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in (
            "variable_assignment",
            "for_statement",
            "c_style_for_statement",
            "declaration_command",
        ):
            for child in node.named_children:
                if child.type == "variable_name":
                    counts[source(child)] += 1
                    if node.type != "declaration_command":
                        break
                elif child.type == "subscript" and child.named_children:
                    counts[source(child.named_children[0])] += 1
                    break
        stack.extend(node.named_children)
    return counts


def plain_reference(text: str) -> str | None:
    """The variable a `$name` / `${name}` expansion reads, or None for anything with operators."""
    match = _REFERENCE.match(text)
    return (match.group(1) or match.group(2)) if match else None


def literal_arithmetic(text: str) -> str | None:
    """The value of `$((EXPR))` when EXPR has numbers and + - * / % ( ) only (bash's 64-bit integer rules),
    else None (a name, an assignment, `++`/`--`, a division by zero)."""
    match = _ARITH.match(text)
    if match is None or "++" in match.group(1) or "--" in match.group(1):
        return None
    try:
        tree = ast.parse(match.group(1).strip(), mode="eval")
        value = _evaluate(tree.body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None
    return str(value)


def _evaluate(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return _wrap(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return _wrap(-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Add):
            return _wrap(left + right)
        if isinstance(node.op, ast.Sub):
            return _wrap(left - right)
        if isinstance(node.op, ast.Mult):
            return _wrap(left * right)
        if isinstance(node.op, ast.Div | ast.Mod):
            if right == 0:
                raise ZeroDivisionError
            quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)  # C truncation
            return _wrap(quotient if isinstance(node.op, ast.Div) else left - right * quotient)
        if isinstance(node.op, ast.Pow) and 0 <= right <= 64:
            return _wrap(left**right)
    raise ValueError("not literal arithmetic")


def _wrap(value: int) -> int:
    value %= _INT64
    return value - _INT64 if value >= _INT64 // 2 else value
