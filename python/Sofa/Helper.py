"""Sofa.Helper: messages routed to settee's log (the settee program prints
them as it prints its own; from python3 they go to stderr, or settee.set_log),
and MessageHandler, to receive them."""
from settee import _settee
from settee._core import _msg, _enter_handler, _exit_handler


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


class MessageHandler:
    """Subclass it and define process(msg); while entered (`with Handler() as
    h:`), process receives every message settee logs (its own, the
    components', msg_info ...) as a dict: type ("Error", "Warning", "Info"),
    message, sender (the component's path, else the file and line), isEmpty,
    component (None in settee), where and path (settee's). Messages still
    reach settee's own output; a handler's own messages are not sent to the
    handlers again."""

    def process(self, msg):
        pass

    def __enter__(self):
        _enter_handler(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        _exit_handler(self)
        return False
