"""The character SOFA's keyboard events carry for each key (event['key']):
the arrows are the control characters 18 (left), 19 (up), 20 (right) and 21
(down); letters are upper case; the keypad digits are the digits."""
import string as _string

leftarrow, uparrow, rightarrow, downarrow = (chr(c) for c in range(18, 22))
space, plus, minus = " ", "+", "-"
globals().update({_c: _c for _c in _string.ascii_uppercase})
globals().update({"KP_%s" % _d: _d for _d in _string.digits})
del _string
