"""Text and names from the input, made safe for the exported code.

An export pastes text it did not write (the spec's path, the command line, fragment ids) into
comments and docstrings, and the spec's formula names into code. Neither may change what the code
does, nor stop it compiling while its header says it was proved:

- `text` writes every character that is not printable (each line terminator a language or an
  editor knows: \\n, \\r, \\v, \\f, \\x1c-\\x1e, \\x85, \\u2028, \\u2029; control and format
  characters such as bidi overrides; lone surrogates) and the backslash as Python's repr would, so
  the line stays one line and says what the input held. `comment` also keeps a C++ `//` line from
  ending in a backslash (or the trigraph `??/`), which would splice the next line into it, and
  `docstring` escapes the quote.
- `Names` renames a formula name that is a keyword (Python's, or C++20's and the GNU dialect's),
  a common macro, a name C++ reserves to the implementation (`__x`, `_X`) or a name the exported
  code itself uses, to a fresh legal one, the same in every use; every other name stays as the
  document prints it.
"""
from __future__ import annotations

import re

# Python's hard keywords, fixed here rather than read from `keyword` so that an export is the same
# bytes whichever Python runs the checker (tests check that `keyword.kwlist` is within it). Soft
# keywords (match, case, type, _) stay: they are legal names wherever an export puts a name.
PYTHON_KEYWORDS = frozenset("""
False None True and as assert async await break class continue def del elif else except finally
for from global if import in is lambda nonlocal not or pass raise return try while with yield
""".split())

# C++20's keywords and alternative tokens, C++26's contract_assert, the TM and reflection TS ones,
# GNU's typeof (g++ defaults to gnu++), the macros g++ predefines in GNU mode (linux, unix, i386)
# and the common library macros a header that includes this one may see defined.
CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm atomic_cancel atomic_commit atomic_noexcept auto bitand bitor bool
break case catch char char8_t char16_t char32_t class compl concept const consteval constexpr
constinit const_cast continue contract_assert co_await co_return co_yield decltype default delete
do double dynamic_cast else enum explicit export extern false float for friend goto if inline int
long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
reflexpr register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch synchronized template this thread_local throw true try typedef typeid
typename typeof union unsigned using virtual void volatile wchar_t while xor xor_eq
linux unix i386 NULL EOF assert errno offsetof setjmp va_arg va_copy va_end va_start stdin stdout
stderr CHAR_BIT INT_MAX INT_MIN UINT_MAX SIZE_MAX min max major minor
""".split())

# what the exported code names itself, in the scope of the formulas' names: the thread and element
# arguments, the functions a body calls, the module's and the header's own names
OWN = frozenset("""
laneid tid i row col lane element computation floor_div floor_mod t ROWS COLS ELEMENTS
kRows kCols kElements kLanes kInverse PTX_FRAGMENT_HD ptx_fragments
""".split())

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def text(value) -> str:
    """`value` on one line: what is not printable, and the backslash, escaped as repr escapes it."""
    out = []
    for ch in str(value):
        if ch == "\\":
            out.append("\\\\")
        elif ch.isprintable():  # false for every line terminator above, controls, Cf, Zl, Zp, Cs
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])
    return "".join(out)


_SPLICE = re.compile(r"(\\\\|\?\?/)( *)$")


def comment(marker: str, line: str) -> str:
    """One comment line: `marker` ('#' or '//') and `line`, made safe."""
    body = text(line)
    if marker == "//":
        # a C++ line that ends in a backslash (spaces after it too, for GNU; or ??/ where
        # trigraphs are on) continues onto the next: end it in the escape \x5c (\x2f) instead
        body = _SPLICE.sub(lambda m: m.group(1)[:-2] + "\\x5c" + m.group(2) if m.group(1) == "\\\\"
                           else "??\\x2f" + m.group(2), body)
    return f"{marker} {body}" if body else marker


def docstring(line: str) -> str:
    """A one-line Python docstring: the quote is escaped too, so the text cannot close it."""
    return '"""' + text(line).replace('"', '\\"') + '"""'


def _cpp_reserved(name: str) -> bool:
    """C++ reserves names with a double underscore, or an underscore and a capital, to the
    implementation: the predefined macros (__FILE__, __CUDACC__, _Pragma) are among them."""
    return "__" in name or re.match(r"_[A-Z]", name) is not None


def legal(name: str, lang: str) -> bool:
    """Whether `name` can be a variable of the exported code as it is."""
    if not _IDENT.fullmatch(name) or name in OWN:
        return False
    if lang == "python":
        return name not in PYTHON_KEYWORDS
    return name not in CPP_KEYWORDS and not _cpp_reserved(name)


def identifier(text_: str, lang: str) -> str:
    """A C++ identifier made of `text_` (a namespace from a file or fragment name): ASCII letters,
    digits and underscores, then renamed like a formula name if that is not legal."""
    # a closing bracket makes no trailing underscore (`D.float[N=64]` is D_float_N_64)
    name = re.sub(r"[^A-Za-z0-9_]", "_", re.sub(r"[^A-Za-z0-9_]+$", "", text_))
    if not name or name[0].isdigit():
        name = "n" + name
    return name if legal(name, lang) else _fresh(name, lang, set())


def _fresh(name: str, lang: str, taken: set) -> str:
    base = name + "_"
    if lang != "python" and _cpp_reserved(name):
        base = "v" + re.sub(r"_{2,}", "_", name)  # v_FILE_ for __FILE__, v_X for _X
    if legal(base, lang) and base not in taken:
        return base
    k = 2
    while not legal(f"{base}{k}", lang) or f"{base}{k}" in taken:
        k += 1
    return f"{base}{k}"


class Names:
    """The exported name of each of a layout's names: itself where legal, else a fresh one that
    neither the layout nor the code uses (the same everywhere it appears)."""

    def __init__(self, names, lang: str, functions=()):
        """`names`: every name of the layout's formulas; `functions`: names of functions the
        code defines beside them (a sparse layout's firstcol_of), kept where no name is them."""
        names = set(names)
        taken = names | OWN
        self.functions = {}
        for f in sorted(functions):
            self.functions[f] = f if legal(f, lang) and f not in names else _fresh(f, lang, taken)
            taken.add(self.functions[f])
        self.map = {}
        for n in sorted(names):
            self.map[n] = n if legal(n, lang) else _fresh(n, lang, taken)
            taken.add(self.map[n])

    def __call__(self, name: str) -> str:
        return self.map.get(name, name)
