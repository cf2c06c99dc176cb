"""What a request, link, embed or CLI call asks for, before any work is done.

``limits`` holds the cost model: every computing route estimates a request's cells and
response bytes from its shapes alone and refuses work over the settings' budget.
"""
