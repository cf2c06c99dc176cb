"""What every route shares, neutral between the JSON surface (``app.api``) and the HTML
surface (``app.web``): ``admission`` (heavy work off the event loop, 503 past the limit),
``body`` (reading and costing a body before parsing it), ``params`` (a link's query
parameters), ``responses`` (encoded answers, the settings of the app, the error
documentation) and ``routing`` (``LeanRoute``). Both surfaces build on it; it imports
neither.
"""
