"""The known-safe command shapes: for each command the read-only fast path accepts, every option it may
carry. An option that is not listed makes the command not read-only (it falls to the rules and the mode),
so a new or forgotten option can only cause a question, never an unapproved write or program run.

Short options are given as letters: `flags` take no value, `valued` take one (glued, `-n5`, or the next
word), `path_valued` take a file the command reads. Long options likewise (`--name`, `--name=V`,
`--name V`). GNU accepts abbreviations of long options; an abbreviation is simply not listed, so it asks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Shape:
    flags: str = ""
    valued: str = ""
    path_valued: str = ""
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    long_path_valued: frozenset[str] = frozenset()
    operands: str = "paths"  # "paths": files read; "text": harmless strings; "none": no operand allowed
    max_operands: int | None = None
    numeric: bool = False  # `head -5`
    recursive: str = ""  # short letters that make it read directory trees
    recursive_long: frozenset[str] = frozenset()
    recursive_always: bool = False  # rg reads trees whatever its options
    names_only: bool = False  # its recursion lists names and sizes (ls -R, du, tree), never contents
    follows_links: str = ""  # short letters that make the recursion follow symlinks
    follows_long: frozenset[str] = frozenset()
    text_only: bool = False  # every word is text to print (echo, true)


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


# fmt: off
_HELP = ("--help", "--version")
_CHECKSUM = Shape(flags="btz", long_flags=_s("--binary", "--text", "--tag", "--zero", *_HELP))

SHAPES: dict[str, Shape] = {
    "ls": Shape(
        flags="aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1",
        valued="ITw",
        long_flags=_s(
            "--all", "--almost-all", "--human-readable", "--classify", "--group-directories-first",
            "--full-time", "--inode", "--no-group", "--numeric-uid-gid", "--reverse", "--recursive",
            "--size", "--directory", "--dereference", "--literal", "--si", "--author", "--color", *_HELP,
        ),
        long_valued=_s(
            "--color", "--sort", "--time", "--time-style", "--format", "--indicator-style", "--ignore",
            "--hide", "--width", "--quoting-style", "--block-size",
        ),
        # -R reads the tree below its operands; -L follows the links it meets there (out of the project)
        recursive="R",
        recursive_long=_s("--recursive"),
        follows_links="L",
        follows_long=_s("--dereference"),
        names_only=True,
    ),
    "cat": Shape(
        flags="AbeEnstTuv",
        long_flags=_s(
            "--number", "--show-all", "--squeeze-blank", "--number-nonblank", "--show-ends", "--show-tabs",
            "--show-nonprinting", *_HELP,
        ),
    ),
    "head": Shape(flags="qvz", valued="cn", numeric=True,
                  long_flags=_s("--quiet", "--silent", "--verbose", "--zero-terminated", *_HELP),
                  long_valued=_s("--bytes", "--lines")),
    "tail": Shape(flags="fFqvz", valued="cns", numeric=True,
                  long_flags=_s("--quiet", "--silent", "--verbose", "--zero-terminated", "--retry", *_HELP),
                  long_valued=_s("--bytes", "--lines", "--follow", "--sleep-interval")),
    "wc": Shape(flags="clmwL", long_flags=_s("--bytes", "--chars", "--lines", "--words",
                                              "--max-line-length", *_HELP)),
    "stat": Shape(flags="LftZ", valued="c", long_flags=_s("--dereference", "--file-system", "--terse", *_HELP),
                  long_valued=_s("--format", "--printf")),
    "nl": Shape(flags="p", valued="bdfhilnsvw"),
    "od": Shape(flags="bcdfilosvxDFHILOX", valued="AjNtSw"),
    "hexdump": Shape(flags="bcCdovx", valued="enNs"),
    "strings": Shape(flags="afd", valued="ntTe", long_flags=_s("--all", *_HELP)),
    "tac": Shape(flags="br", valued="s"),
    "rev": Shape(),
    "cut": Shape(flags="nsz", valued="bcdf",
                 long_flags=_s("--complement", "--only-delimited", "--zero-terminated", *_HELP),
                 long_valued=_s("--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter")),
    "fold": Shape(flags="bs", valued="w", long_valued=_s("--width")),
    "column": Shape(flags="tnxe", valued="sco"),
    "cmp": Shape(flags="bls", valued="in", long_flags=_s("--silent", "--quiet", "--verbose", "--print-bytes")),
    "comm": Shape(flags="123z", long_flags=_s("--check-order", "--nocheck-order", "--total"),
                  long_valued=_s("--output-delimiter")),
    "diff": Shape(
        flags="abBdEiNpqrsStTuwyZ",
        valued="CUxIFLWD",
        path_valued="X",
        long_flags=_s(
            "--brief", "--report-identical-files", "--unified", "--context", "--recursive", "--new-file",
            "--ignore-case", "--ignore-all-space", "--ignore-space-change", "--ignore-blank-lines",
            "--text", "--side-by-side", "--suppress-common-lines", "--show-c-function", "--minimal",
            "--no-dereference", "--color", "--expand-tabs", "--initial-tab", "--strip-trailing-cr", *_HELP,
        ),
        long_valued=_s("--unified", "--context", "--exclude", "--ignore-matching-lines", "--label",
                       "--width", "--color"),
        long_path_valued=_s("--exclude-from"),
        recursive="r",
        recursive_long=_s("--recursive"),
        follows_links="r",  # diff -r follows symbolic links it meets
        follows_long=_s("--recursive"),
    ),
    **dict.fromkeys(["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum"], _CHECKSUM),
    "b2sum": Shape(flags="btz", valued="l", long_flags=_s("--binary", "--text", "--tag", "--zero", *_HELP)),
    "cksum": Shape(),
    "realpath": Shape(flags="eLmPqsz", long_flags=_s("--canonicalize-existing", "--canonicalize-missing",
                                                      "--logical", "--physical", "--quiet", "--strip",
                                                      "--no-symlinks", "--zero"),
                      long_path_valued=_s("--relative-to", "--relative-base")),
    "readlink": Shape(flags="efmnqsvz", long_flags=_s("--canonicalize", "--canonicalize-existing",
                                                       "--canonicalize-missing", "--no-newline")),
    "du": Shape(flags="abcDhHklLmsSx0", valued="dtB",
                long_flags=_s("--apparent-size", "--summarize", "--human-readable", "--total", "--si",
                              "--all", "--bytes", "--count-links", "--one-file-system", *_HELP),
                long_valued=_s("--max-depth", "--exclude", "--threshold", "--block-size", "--time"),
                recursive_always=True, follows_links="L", names_only=True),  # du walks trees; -L: links
    "df": Shape(flags="ahHiklPTx", valued="Btx", operands="paths",
                long_flags=_s("--all", "--human-readable", "--si", "--inodes", "--local", "--portability",
                              "--print-type", "--total", "--output", *_HELP),
                long_valued=_s("--block-size", "--type", "--exclude-type", "--output")),
    "file": Shape(flags="bhiLNsSzZkE0", long_flags=_s("--brief", "--mime", "--mime-type", "--mime-encoding",
                                                       "--dereference", "--no-dereference", "--keep-going",
                                                       *_HELP)),
    "grep": Shape(
        flags="EFGPiyvwxcLloqsbHhnTZzUraIr",
        valued="emABCdD",
        path_valued="f",
        long_flags=_s(
            "--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp", "--ignore-case",
            "--no-ignore-case", "--invert-match", "--word-regexp", "--line-regexp", "--count",
            "--files-with-matches", "--files-without-match", "--only-matching", "--quiet", "--silent",
            "--no-messages", "--byte-offset", "--with-filename", "--no-filename", "--line-number",
            "--initial-tab", "--null", "--null-data", "--text", "--recursive", "--line-buffered", "--color",
            "--colour", *_HELP,
        ),
        long_valued=_s(
            "--regexp", "--max-count", "--after-context", "--before-context", "--context", "--include",
            "--exclude", "--exclude-dir", "--color", "--colour", "--label", "--binary-files", "--directories",
            "--devices",
        ),
        long_path_valued=_s("--file", "--exclude-from"),
        recursive="r",
        recursive_long=_s("--recursive"),
    ),
    "rg": Shape(
        flags="iIsSvwxFcClnNopqUHhb0.u",  # not -z: it runs decompressors
        valued="eEgtTABCMmjd",
        path_valued="f",
        long_flags=_s(
            "--hidden", "--no-ignore", "--files", "--files-with-matches", "--files-without-match", "--count",
            "--count-matches", "--json", "--line-number", "--no-line-number", "--no-heading", "--heading",
            "--smart-case", "--ignore-case", "--case-sensitive", "--fixed-strings", "--word-regexp",
            "--line-regexp", "--column", "--only-matching", "--multiline", "--stats", "--no-messages",
            "--vimgrep", "--with-filename", "--no-filename", "--invert-match", "--trim", "--no-config",
            "--type-list", "--null", "--quiet", "--no-ignore-vcs", "--unrestricted", "--pretty", "--text",
            "--passthru", "--byte-offset", *_HELP,
        ),
        long_valued=_s(
            "--type", "--type-not", "--glob", "--iglob", "--max-count", "--max-depth", "--context",
            "--after-context", "--before-context", "--color", "--colors", "--sort", "--sortr", "--max-columns",
            "--regexp", "--max-filesize", "--threads", "--encoding", "--replace",
        ),
        long_path_valued=_s("--file"),
        recursive_always=True,
    ),
    "tree": Shape(flags="adfxpsughDFqNQrtvUCAnJi", valued="LPIH", recursive_always=True, names_only=True,
                  long_flags=_s("--noreport", "--dirsfirst", "--gitignore", "--du", "--prune", *_HELP),
                  long_valued=_s("--charset", "--filelimit", "--sort", "--timefmt")),
    "sort": Shape(flags="bdfgiMhnRrVcCmsuz", valued="ktS",
                  long_flags=_s("--ignore-leading-blanks", "--dictionary-order", "--ignore-case",
                                "--general-numeric-sort", "--human-numeric-sort", "--numeric-sort",
                                "--month-sort", "--reverse", "--version-sort", "--stable", "--unique",
                                "--zero-terminated", "--check", "--merge", *_HELP),
                  long_valued=_s("--key", "--field-separator", "--buffer-size", "--parallel", "--sort")),
    "uniq": Shape(flags="cdDiuz", valued="fsw", max_operands=1,
                  long_flags=_s("--count", "--repeated", "--ignore-case", "--unique", "--zero-terminated")),
    "xxd": Shape(flags="aCEeipuv", valued="cglosn", max_operands=1),
    "jq": Shape(
        flags="nrjacsSeCMR",
        valued="",
        long_flags=_s("--null-input", "--raw-output", "--join-output", "--ascii-output", "--compact-output",
                      "--slurp", "--sort-keys", "--exit-status", "--tab", "--color-output",
                      "--monochrome-output", "--raw-input", "--seq", "--stream", *_HELP),
        long_valued=_s("--indent"),
    ),
    "date": Shape(flags="uRI", valued="d", path_valued="r", operands="text",
                  long_flags=_s("--utc", "--universal", "--rfc-email", "--iso-8601"),
                  long_valued=_s("--date", "--iso-8601", "--rfc-3339"), long_path_valued=_s("--reference")),
    "hostname": Shape(flags="sfdiIAa", operands="none"),
    "echo": Shape(text_only=True),
    "true": Shape(text_only=True),
    "false": Shape(text_only=True),
    "pwd": Shape(flags="LP", operands="none"),
    "sleep": Shape(operands="text"),
    "seq": Shape(flags="w", valued="fs", operands="text"),
    "whoami": Shape(operands="none"),
    "id": Shape(flags="gGnruz", operands="text"),
    "uname": Shape(flags="asnrvmpio", operands="none"),
    "nproc": Shape(long_flags=_s("--all"), operands="none"),
    "arch": Shape(operands="none"),
    "tty": Shape(flags="s", operands="none"),
    "groups": Shape(operands="text"),
    "locale": Shape(flags="am", operands="text"),
    "which": Shape(flags="a", operands="text"),
    "type": Shape(flags="afptP", operands="text"),
    "basename": Shape(flags="az", valued="s", operands="text"),
    "dirname": Shape(flags="z", operands="text"),
    "expr": Shape(text_only=True),
}
# Never read-only: they print the environment (secrets) or change it.
ENVIRONMENT_PRINTERS = frozenset({"env", "printenv", "set", "declare", "typeset", "export", "readonly", "local"})
FIND_PREDICATES = frozenset(
    [
        "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type",
        "-xtype", "-maxdepth", "-mindepth", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
        "-newer", "-size", "-empty", "-perm", "-user", "-group", "-uid", "-gid", "-nouser", "-nogroup",
        "-links", "-inum", "-samefile", "-readable", "-writable", "-executable", "-print", "-print0",
        "-printf", "-ls", "-prune", "-quit", "-not", "!", "-a", "-o", "-and", "-or", "(", ")", ",",
        "-true", "-false", "-depth", "-mount", "-xdev", "-regextype", "-daystart", "-noleaf", "-lname",
        "-ilname", "-used", "-newermt", "-newerct", "-newerat",
    ]
)
FIND_VALUED = frozenset(
    [
        "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type",
        "-xtype", "-maxdepth", "-mindepth", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
        "-size", "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-printf", "-regextype",
        "-lname", "-ilname", "-used", "-newermt", "-newerct", "-newerat",
    ]
)
FIND_PATH_VALUED = frozenset({"-newer", "-samefile"})
FIND_GLOBAL = frozenset({"-H", "-P"})  # -L follows symlinks out of the tree: not listed
# fmt: on
