"""What every route shares, neutral between the JSON surface (``app.api``) and the HTML
surface (``app.web``): ``pipeline`` (the ONE request pipeline every computing route takes:
parse, price, admit, compute off the loop, encode), ``admission`` (the app's gate: heavy
work off the event loop, 503 past the limit), ``body`` (reading and costing a body before
parsing it), ``params`` (a link's query parameters), ``responses`` (encoded answers, the
settings of the app, the public URL, the error documentation) and ``routing``
(``LeanRoute``); ``lab_state`` and ``lab_answer`` are the lab requests both surfaces
answer. Both surfaces build on it; it imports neither.
"""
