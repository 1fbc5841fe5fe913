"""Sofa.constants: the key codes SofaPython3 scripts compare keyboard events
with (Key: the character of a key, KeyCode: its code). settee is headless and
sends no keyboard event; scripts that use these names load and run."""
from . import Key, KeyCode  # noqa: F401

__all__ = ["Key", "KeyCode"]
