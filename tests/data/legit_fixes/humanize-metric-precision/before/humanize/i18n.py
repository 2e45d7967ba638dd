"""A stand-in for humanize.i18n with English only (no message catalogues): written for fixbot's
test data, so the vendored module imports; not humanize's code."""


def _gettext(message):
    return message


def _pgettext(msgctxt, message):
    return message


def _ngettext(message, plural, num):
    return message if num == 1 else plural


def _gettext_noop(message):
    return message


def _ngettext_noop(singular, plural):
    return (singular, plural)


def thousands_separator():
    return ","


def decimal_separator():
    return "."
