"""What a request, link, embed or CLI call asks for, before any work is done.

The named examples are data below this package and the figures: ``app.presets``.
``body`` (the attention request body, matrix types, size
limits, the token label limit), ``softmax`` (the softmax endpoint's body), ``view`` (the
ONE view model: focus, head, stretch, row, theme), ``link`` (the URL codec), ``query``
(strict URL numbers), ``limits`` (the cost model: every computing route estimates a
request's cells and response bytes from its shapes alone and refuses work over the
settings' budget), ``resolve`` (a link or a body -> stages + view + title: the one path
of pages, embeds, export and the CLI), ``experiments`` and ``position_cost`` (the labs'
request bodies) and ``errors`` (the one error shape, and ``FieldError``, this package's
own validation error).
"""
