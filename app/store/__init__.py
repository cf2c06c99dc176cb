"""The database: where what must outlive a request is kept (short links; later the LTI
platforms and keys). SQLAlchemy 2 Core, SQLite by default under the data directory with
no setup, PostgreSQL by ``ATTENTION_LAB_DATABASE_URL``; the schema is built by the
versioned migrations of ``app.store.migrations``. Framework-free: the routes in
``app.api.short_links`` and ``app.web.short_links`` call it from worker threads."""
