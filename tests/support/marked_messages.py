"""The messages the templates and the code mark for translation, gathered the way
``makemessages`` gathers them, in Python alone (``makemessages`` needs GNU gettext,
which CI may not have): templates through Django's own ``templatize`` (the step
``makemessages`` feeds to xgettext), Python files through their syntax tree."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from django.conf import settings
from django.utils.translation.template import templatize

BASE_DIR = Path(settings.BASE_DIR)
TEMPLATE_DIR = BASE_DIR / "templates"
# As ``makemessages --ignore=.venv --ignore=var --ignore=benchmarks --ignore=tests``.
IGNORED = {".venv", "var", "benchmarks", "tests", "locale", "docs", "node_modules"}
GETTEXT_CALL = re.compile(r"\b(gettext|ngettext|pgettext|npgettext)\(")
PYTHON_KEYWORDS = {"_", "gettext", "gettext_lazy", "gettext_noop", "ngettext", "ngettext_lazy"}

Message = tuple[str, str]  # (msgid, msgid_plural or "")


def _string_arguments(source: str) -> list[str]:
    """The leading string literals of a call's argument list."""
    strings: list[str] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING:
            strings.append(ast.literal_eval(token.string))
        elif token.string != "," and token.type not in (tokenize.NL, tokenize.NEWLINE):
            break
    return strings


def template_messages() -> dict[Message, set[str]]:
    found: dict[Message, set[str]] = {}
    for path in sorted(TEMPLATE_DIR.rglob("*")):
        if path.suffix not in {".html", ".txt"}:
            continue
        name = str(path.relative_to(BASE_DIR))
        code = templatize(path.read_text(encoding="utf-8"), origin=name)
        for match in GETTEXT_CALL.finditer(code):
            # Each call sits on one line of the templatized output.
            line_end = code.find("\n", match.end())
            arguments = _string_arguments(code[match.end() : line_end if line_end != -1 else None])
            if match.group(1).startswith("p") or match.group(1).startswith("np"):
                arguments = arguments[1:]  # the context
            if not arguments:
                continue
            plural = arguments[1] if match.group(1).startswith(("n", "np")) and len(arguments) > 1 else ""
            found.setdefault((arguments[0], plural), set()).add(name)
    return found


def _python_files() -> list[Path]:
    return [
        path
        for path in sorted(BASE_DIR.rglob("*.py"))
        if not IGNORED.intersection(path.relative_to(BASE_DIR).parts[:-1])
    ]


def python_messages() -> dict[Message, set[str]]:
    found: dict[Message, set[str]] = {}
    for path in _python_files():
        name = str(path.relative_to(BASE_DIR))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=name)):
            if not isinstance(node, ast.Call):
                continue
            func = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if func not in PYTHON_KEYWORDS or not node.args:
                continue
            literals = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if not literals or not isinstance(node.args[0], ast.Constant):
                continue
            plural = literals[1] if func.startswith("ngettext") and len(literals) > 1 else ""
            found.setdefault((literals[0], plural), set()).add(name)
    return found
