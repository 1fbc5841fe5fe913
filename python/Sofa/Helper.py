"""Sofa.Helper: messages routed to settee's log (the settee program prints
them as it prints its own; from python3 they go to stderr, or settee.set_log)."""
from settee import _settee
from settee._core import _msg


def msg_info(*args):
    _msg(_settee.LOG_INFO, args)


def msg_warning(*args):
    _msg(_settee.LOG_WARNING, args)


def msg_error(*args):
    _msg(_settee.LOG_ERROR, args)


def msg_fatal(*args):
    _msg(_settee.LOG_ERROR, args)


def msg_deprecated(*args):
    _msg(_settee.LOG_WARNING, args)
