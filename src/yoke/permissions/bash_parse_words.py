"""How the bash parser reads words: literals, quoting, expansions the analyser can resolve (loop words, line
locals, literal arithmetic) and the command and process substitutions inside words, whose commands are
judged as the line's own. `bash_parse.py`'s walker inherits these methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yoke.permissions.bash_values import literal_arithmetic, plain_reference, source
from yoke.permissions.bash_words import Word, ansi_c_word, plain_word, unescape_double

if TYPE_CHECKING:
    from tree_sitter import Node

    from yoke.permissions.bash_parse import ParsedCommand


class WordReader:
    # what these methods use of the walker (bash_parse.py), which inherits them
    out: ParsedCommand
    backtick_depth: int
    bindings: dict[str, Word]
    locals: set[str]

    if TYPE_CHECKING:

        def problem(self, text: str) -> None: ...

        def statement(self, node: Node) -> None: ...

    def reference(self, text: str, quoted: bool) -> Word | None:
        """A `$name` the analyser knows: a bound loop word or a line local (None: an ordinary expansion).
        Unquoted, a bound word is split and globbed again: only a literal without blanks or glob
        characters stays itself."""
        name = plain_reference(text)
        if name is None:
            return None
        bound = self.bindings.get(name)
        if bound is not None:
            if bound.glob or bound.tilde:  # its value is what the expansions make of it: whole words only
                return Word(bound.text, glob=bound.glob, tilde=bound.tilde) if quoted else None
            if quoted or not any(ch in bound.text for ch in " \t\n*?["):
                return Word(bound.text)
            return None
        if name in self.locals:
            return Word(text, static=False, derived=True)
        return None

    # words --------------------------------------------------------------------------------------------

    def word(self, node: Node) -> Word:
        kind = node.type
        text = source(node)
        if kind == "word":
            if "`" in text:
                self.problem("an escaped backquote")
            if self.backtick_depth and "\\" in text:
                self.problem("backslashes inside backquotes")
            return plain_word(text)
        if kind == "number":
            return Word(text)
        if kind == "raw_string":
            return Word(text[1:-1])
        if kind == "ansi_c_string":
            return ansi_c_word(text[2:-1])
        if kind in ("string", "translated_string"):
            return self.double_quoted(node)
        if kind == "concatenation":
            parts = [self.word(c) for c in node.named_children]
            tilde = False if text.startswith(("'", '"', "$'")) or not parts else parts[0].tilde
            static = all(p.static for p in parts)
            return Word(
                "".join(p.text for p in parts),
                static=static,
                derived=not static and all(p.static or p.derived for p in parts),
                glob=any(p.glob for p in parts),
                brace=any(p.brace for p in parts)
                or ("{" in text and "}" in text and _has_unquoted_brace(node)),
                tilde=tilde,
            )
        if kind in ("simple_expansion", "expansion", "arithmetic_expansion"):
            return self.expansion(kind, node, text)
        if kind == "command_substitution":
            self.substitution(node)  # its commands are judged as the line's own
            return Word(text, static=False, derived=True)
        if kind == "process_substitution":
            self.substitution(node)
            self.out.expansions = True
            return Word(text, static=False, procsub=True)
        if kind == "brace_expression":
            return Word(text, brace=True)
        if kind in ("regex", "extglob_pattern", "variable_name", "special_variable_name"):
            if kind == "special_variable_name":
                self.out.expansions = True
            return Word(text, static=kind != "special_variable_name")
        if kind == "subscript":
            self.nested(node)
            self.out.expansions = True
            return Word(text, static=False)
        self.problem(f"unsupported shell construct `{kind}` in a word")
        return Word(text, static=False)

    def expansion(self, kind: str, node: Node, text: str) -> Word:
        """`$x`, `${x...}`, `$((...))`: a value the analyser knows, else an expansion only known at run time."""
        if kind in ("simple_expansion", "expansion"):
            known = self.reference(text, quoted=False)
            if known is not None:
                return known
        if kind == "arithmetic_expansion":
            value = literal_arithmetic(text)
            if value is not None:
                return Word(value)
        if kind == "expansion" and "@P" in text.replace(" ", ""):
            self.problem("prompt expansion ${var@P}")
        self.nested(node)
        self.out.expansions = True
        return Word(text, static=False)

    def double_quoted(self, node: Node) -> Word:
        pieces: list[str] = []
        static = derived = True
        named = [c for c in node.children if c.is_named]
        for child in node.children:
            if child.type == "string_content":
                content = source(child)
                if self.backtick_depth and "\\" in content:
                    self.problem("backslashes inside backquotes")
                pieces.append(unescape_double(content))
            elif child.is_named:
                known = None
                if child.type in ("simple_expansion", "expansion"):
                    known = self.reference(source(child), quoted=True)
                if known is not None and (known.glob or known.tilde):
                    if len(named) == 1 and not any(c.type == "string_content" for c in node.children):
                        return known  # "$f" of a glob (or ~) word: each path that word names
                    known = None
                part = known if known is not None else self.word(child)
                pieces.append(part.text)
                static = static and part.static
                derived = derived and (part.static or part.derived)
        return Word("".join(pieces), static=static, derived=not static and derived)

    def substitution(self, node: Node) -> None:
        backtick = node.children and node.children[0].type == "`"
        if backtick:
            if "\\" in source(node):
                self.problem("backslashes inside backquotes")
            self.backtick_depth += 1
        for child in node.named_children:
            self.statement(child)
        if backtick:
            self.backtick_depth -= 1

    def nested(self, node: Node) -> None:
        """Expansions can hide command substitutions: `${x:-$(cmd)}`, `$(( $(cmd) ))`."""
        for sub in node.named_children:
            if sub.type in ("command_substitution", "process_substitution"):
                self.word(sub)
            elif sub.named_child_count:
                self.nested(sub)


def _has_unquoted_brace(node: Node) -> bool:
    return any(c.type == "word" and ("{" in source(c) or "}" in source(c)) for c in node.named_children)
