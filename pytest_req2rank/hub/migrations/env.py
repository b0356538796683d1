"""Alembic environment of the hub: batch mode, so SQLite can alter tables too."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from pytest_req2rank.hub._tables import Base

config = context.config
url = config.get_main_option("sqlalchemy.url")

if context.is_offline_mode():
    context.configure(url=url, target_metadata=Base.metadata, literal_binds=True,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    engine = create_engine(str(url))
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()
