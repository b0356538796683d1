"""``req2rank-hub``: serve the hub, migrate its database, back it up, create and revoke
tokens, prune what expired."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

from ._config import HubConfig

HUB_EXTRA_MODULES = ("fastapi", "uvicorn", "sqlalchemy", "alembic", "cryptography", "slowapi",
                     "jinja2")
"""What the hub runs on: the ``hub`` extra (pyproject.toml) but its PostgreSQL driver."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="req2rank-hub",
                                     description="The req2rank leaderboard hub")
    parser.add_argument("--database-url", help="SQLAlchemy URL (env R2R_HUB_DATABASE_URL; "
                        "default: SQLite in .req2rank-hub/ or R2R_HUB_DIR)")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="Migrate the database, then serve the hub")
    serve.add_argument("--host", default=os.environ.get("R2R_HUB_HOST", "127.0.0.1"),
                       help="Address to listen on (env R2R_HUB_HOST; default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=os.environ.get("R2R_HUB_PORT", "8000"),
                       help="Port (env R2R_HUB_PORT; default 8000)")
    serve.add_argument("--public-url", help="The hub's address as users reach it, behind a "
                       "proxy (env R2R_HUB_PUBLIC_URL)")
    serve.add_argument("--reverify-every", type=int, metavar="SECONDS",
                       help="Re-verify new submissions this often while serving "
                       "(env R2R_HUB_REVERIFY_EVERY; default 60; 0: only with `reverify`)")
    commands.add_parser("migrate", help="Create or upgrade the database's tables")
    backup = commands.add_parser("backup", help="Copy the database (SQLite: safe while "
                                 "serving, a hub directory to restore with R2R_HUB_DIR; "
                                 "PostgreSQL: with pg_dump) and the signing key into DEST_DIR")
    backup.add_argument("destination", metavar="DEST_DIR", type=Path)
    again = commands.add_parser("reverify", help="Replay submissions' requirements from their "
                                "seeds, grade their answers and ask their models again, and mark "
                                "them verified or disputed")
    again.add_argument("submissions", type=int, nargs="*", metavar="ID")
    again.add_argument("--pending", action="store_true",
                       help="Every submission not re-verified yet (for a cron job)")
    again.add_argument("--sample", type=int, help="Grade the answers of N items chosen at random "
                       "(default: all, at most R2R_HUB_REPLAY_MAX_ITEMS; the model is asked "
                       "R2R_HUB_REVERIFY_SAMPLE items)")
    token = commands.add_parser("token", help="API tokens")
    token_commands = token.add_subparsers(dest="token_command", required=True)
    create = token_commands.add_parser("create", help="Create a token for USER (created when "
                                       "new), valid R2R_HUB_TOKEN_TTL seconds")
    create.add_argument("user")
    create.add_argument("--admin", action="store_true", help="Make USER an admin of this hub")
    create.add_argument("--github-id", type=int, metavar="ID",
                        help="Bind USER to the GitHub account with this numeric id (else the "
                        "first GitHub sign-in as USER binds it)")
    revoke = token_commands.add_parser("revoke", help="Revoke every token of USER")
    revoke.add_argument("user")
    commands.add_parser("prune", help="Delete nonces never used, tokens and sign-ins that "
                        "expired or were revoked more than R2R_HUB_RETENTION seconds ago (an "
                        "abandoned attempt of a model keeps its row, without its declared "
                        "settings; the served hub does it every hour)")
    return parser


def _port(value: str) -> int:
    """A TCP port from the command line or R2R_HUB_PORT (argparse converts both)."""
    if not value.strip().isdigit() or not 0 < int(value) < 65536:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port; give 1-65535 "
                                         "(--port or R2R_HUB_PORT)")
    return int(value)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; a bad value is one line on stderr and exit status 2, a plugin
    installed without the ``hub`` extra one line saying what to install, and status 1."""
    missing = [name for name in HUB_EXTRA_MODULES if find_spec(name) is None]
    if missing:
        print(f"req2rank-hub: the hub needs the 'hub' extra ({', '.join(missing)} not "
              "installed): pip install 'pytest-req2rank[hub]'", file=sys.stderr)
        return 1
    args = _parser().parse_args(argv)
    try:
        config = HubConfig.from_env(database_url=args.database_url,
                                    public_url=getattr(args, "public_url", None),
                                    reverify_every_s=getattr(args, "reverify_every", None))
    except ValueError as exc:
        print(f"req2rank-hub: {exc}", file=sys.stderr)
        return 2
    if not _valid_url(config.database_url):
        print("req2rank-hub: the database URL (--database-url, R2R_HUB_DATABASE_URL) is not a "
              "SQLAlchemy URL; give sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DB",
              file=sys.stderr)
        return 2
    if args.command == "backup":
        return _backup(config, args.destination)
    # SQLAlchemy is imported once the arguments are read: a usage error loads none of it
    from sqlalchemy.exc import SQLAlchemyError

    from ._database import migrate

    try:
        if args.command == "migrate":
            migrate(config.database_url)
            print(f"req2rank-hub: {_shown(config.database_url)} is at the latest schema")
            return 0
        if args.command == "token" and args.token_command == "create":
            return _create_token(config, args.user, args.admin, args.github_id)
        if args.command == "token":
            return _revoke_tokens(config, args.user)
        if args.command == "prune":
            return _prune(config)
        if args.command == "reverify":
            if not args.submissions and not args.pending:
                print("req2rank-hub: reverify: give submission IDs or --pending", file=sys.stderr)
                return 2
            return _reverify(config, args.submissions, args.pending, args.sample)
        migrate(config.database_url)
    except (SQLAlchemyError, OSError) as exc:
        print(f"req2rank-hub: database {_shown(config.database_url)}: "
              f"{str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    return _serve(config, args.host, args.port)


def _serve(config: HubConfig, host: str, port: int) -> int:
    """Serve until stopped; what keeps the hub from starting (its signing key, its address)
    is one line on stderr and exit status 1."""
    # imported by the command that uses it: the other commands load none of it
    import socket

    import uvicorn

    from ._app import create_app

    try:
        app = create_app(config)
    except OSError as exc:  # the signing key's file
        reason = f"{exc.strerror}: {exc.filename}" if exc.strerror and exc.filename else exc
        print(f"req2rank-hub: signing key {config.key_path}: {reason}; set "
              "R2R_HUB_KEY (or R2R_HUB_DIR) to a file the hub can create and read",
              file=sys.stderr)
        return 1
    except ValueError as exc:  # a setting the app refuses, a signing key that is not one
        print(f"req2rank-hub: {exc}", file=sys.stderr)
        return 2
    try:  # bound here, not by Uvicorn: its bind error is a log record and exit status 1
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        listener = socket.create_server((host, port), family=family)
    except OSError as exc:
        errno = exc.errno or 0
        reason = os.strerror(errno) if errno > 0 else exc.strerror or exc
        print(f"req2rank-hub: cannot listen on {host}:{port}: {reason}; stop what "
              "uses it or give another --host/--port", file=sys.stderr)
        return 1
    _log_to_stderr()
    address = _address(host, listener.getsockname()[1])

    class AnnouncedServer(uvicorn.Server):
        """Says where it listens once it answers (Uvicorn says nothing of a socket it is
        given)."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(f"req2rank-hub: serving {address} (Ctrl-C to stop)", flush=True)

    server = AnnouncedServer(uvicorn.Config(
        app, host=host, port=port, proxy_headers=True,
        forwarded_allow_ips=os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")))
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
    return 0 if server.started else 1


def _backup(config: HubConfig, destination: Path) -> int:
    # imported by the command that uses it: the other commands load none of it
    from ._backup import BackupError, back_up

    try:
        made = back_up(config, destination)
    except BackupError as exc:
        print(f"req2rank-hub: {exc.message}", file=sys.stderr)
        return exc.status
    except OSError as exc:
        print(f"req2rank-hub: backup into {destination}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if made.submissions is not None:  # SQLite: the copy is a hub directory
        print(f"req2rank-hub: backed up {_shown(config.database_url)} ({made.submissions} "
              f"submissions) and the signing key to {made.database} and {made.key}; to "
              f"restore, serve with R2R_HUB_DIR={destination}")
    else:
        print(f"req2rank-hub: backed up {_shown(config.database_url)} and the signing key to "
              f"{made.database} and {made.key}; to restore, `createdb NEWDB && pg_restore "
              f"--no-owner --dbname=NEWDB {made.database}`, then serve with "
              f"R2R_HUB_DATABASE_URL=... R2R_HUB_KEY={made.key}")
    return 0


def _valid_url(url: str) -> bool:
    # imported after the hub extra is found installed (main says what is missing)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        make_url(url)
    except ArgumentError:
        return False
    return True


def _create_token(config: HubConfig, user: str, admin: bool, github_id: int | None) -> int:
    # imported by the command that uses it: the other commands load none of it
    from ._accounts import create_token
    from ._database import make_engine, migrate, session_factory
    from ._errors import Refused

    migrate(config.database_url)
    engine = make_engine(config.database_url)
    try:
        with session_factory(engine)() as session:
            token = create_token(session, user, admin=admin, github_id=github_id, config=config)
    except Refused as exc:
        print(f"req2rank-hub: {exc.message}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    print(token)
    return 0


def _revoke_tokens(config: HubConfig, name: str) -> int:
    # imported by the command that uses it: the other commands load none of it
    from sqlalchemy import select

    from ._accounts import revoke_tokens
    from ._database import make_engine, migrate, session_factory
    from ._tables import User

    migrate(config.database_url)
    engine = make_engine(config.database_url)
    try:
        with session_factory(engine)() as session:
            user = session.scalar(select(User).where(User.name == name))
            if user is None:
                print(f"req2rank-hub: no user {name!r} on this hub", file=sys.stderr)
                return 2
            revoked = revoke_tokens(session, user)
    finally:
        engine.dispose()
    print(f"req2rank-hub: revoked {revoked} token{'s' * (revoked != 1)} of {name}")
    return 0


def _prune(config: HubConfig) -> int:
    # imported by the command that uses it: the other commands load none of it
    from ._database import make_engine, migrate, session_factory
    from ._pruning import prune

    migrate(config.database_url)
    engine = make_engine(config.database_url)
    try:
        with session_factory(engine)() as session:
            pruned = prune(session, config)
    finally:
        engine.dispose()
    print(f"req2rank-hub: pruned {pruned.nonces} nonces, {pruned.tokens} tokens, "
          f"{pruned.sessions} sign-ins and {pruned.states} sign-in states; "
          f"{pruned.attempts} abandoned attempts kept without their declared settings")
    return 0


def _reverify(config: HubConfig, submission_ids: list[int], pending: bool,
              sample: int | None) -> int:
    # imported by the command that uses it: the other commands load none of it
    from ._database import make_engine, migrate, session_factory
    from ._errors import Refused
    from ._reverify import pending_reverification, reverify_submission

    migrate(config.database_url)
    engine = make_engine(config.database_url)
    sessions = session_factory(engine)
    worst = 0
    try:
        if pending:
            with sessions() as session:
                submission_ids = [*submission_ids, *pending_reverification(session)]
        if not submission_ids:
            print("req2rank-hub: no submission waits for re-verification")
        for submission_id in submission_ids:
            with sessions() as session:
                outcome = reverify_submission(session, submission_id, config, sample=sample)
            print(f"req2rank-hub: submission {submission_id}: {outcome.status} (answers "
                  f"{outcome.answers.status}, {len(outcome.answers.compared)} items; model "
                  f"{outcome.model.status}, {len(outcome.model.compared)} items)")
            for reason in outcome.reasons:
                print(f"  {reason}")
            if outcome.retry_at is not None:
                print(f"  the replay failed on the hub; it is tried again after "
                      f"{outcome.retry_at.isoformat(timespec='seconds')}")
            worst = max(worst, 0 if outcome.status == "verified" else 1)
    except Refused as exc:
        print(f"req2rank-hub: {exc.message}", file=sys.stderr)
        return 2
    finally:
        engine.dispose()
    return worst


def _address(host: str, port: int) -> str:
    """The URL of ``host`` and ``port``."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _log_to_stderr() -> None:
    """The hub's own messages (re-verification outcomes) beside Uvicorn's."""
    # only the served hub logs
    import logging

    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
    hub_log = logging.getLogger("req2rank.hub")
    hub_log.addHandler(handler)
    hub_log.setLevel(logging.INFO)


def _shown(url: str) -> str:
    """``url`` without its password."""
    # imported after the hub extra is found installed (main says what is missing)
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


if __name__ == "__main__":
    sys.exit(main())
