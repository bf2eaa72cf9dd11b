"""How the bot sees the layout of a mail's lines: their indent, and a heading underlined by dashes.

Shared by the reader of the English mail (``reading``) and the step that
turns a translated mail back into English (``english``): both must find the
same headings and blocks, or the translated mail would be read otherwise.
"""
from __future__ import annotations


def indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def is_heading(lines: list[str], index: int) -> bool:
    """A heading: a text line underlined by a rule of dashes of the same length."""
    if index + 1 >= len(lines):
        return False
    text, rule = lines[index], lines[index + 1]
    return bool(text.strip()) and bool(rule) and set(rule) == {"-"} and len(rule) == len(text.rstrip())
