"""What coordqa's two web servers share: the leaderboard and the run viewer (``coordqa view``).

Both show text written by others (submitters' names, models' replies), so both render through
one autoescaping Jinja environment (:mod:`coordqa.web.rendering`: the page skeleton
``web/page.html``, the accuracy macros ``web/accuracy.html``, the number filters), send one set
of security headers (:mod:`coordqa.web.headers`), serve one stylesheet and table sorter
(``static/``), and run under one guarded uvicorn server (:mod:`coordqa.web.serving`). Neither
server imports the other. FastAPI, Jinja2 and uvicorn (the ``leaderboard`` extra) are imported
by the modules that need them, never here.
"""
