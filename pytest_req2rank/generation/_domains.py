"""Domain migration material: the setting of each scenario and the nouns that belong to each domain."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..models import DOMAINS

DOMAIN_LABELS: dict[str, str] = {
    "e-commerce": "e-commerce", "social": "social network", "finance": "finance",
    "developer-tools": "developer tooling", "data-analysis": "data analysis", "games": "games",
    "general-utilities": "general utilities",
}

SETTINGS: dict[str, str] = {
    "e-commerce/product-search": "the product search of an online shop, where shoppers filter "
                                 "and rank the catalogue",
    "e-commerce/shopping-cart": "the shopping cart of an online shop, between browsing and checkout",
    "e-commerce/coupons": "the promotions service of an online shop, which applies coupons and "
                          "discounts",
    "e-commerce/inventory": "the inventory service of a warehouse that ships web orders",
    "e-commerce/order-state-machine": "the order pipeline of a marketplace, from placement to "
                                      "delivery and refund",
    "social/feed": "the home feed of a social network, which assembles posts for each member",
    "social/comments": "the comment system of a community site",
    "social/notifications": "the notification service of a social app, which pushes alerts to "
                            "members",
    "social/friendships": "the friendship and follower graph of a social network",
    "finance/bookkeeping": "the bookkeeping back office of a small business",
    "finance/currency-conversion": "the currency conversion service of a payments company",
    "finance/risk-rules": "the risk engine of a payments company, which screens transactions "
                          "before they are booked",
    "finance/reporting": "the reporting pipeline that produces monthly financial statements",
    "developer-tools/cli-tool": "a command-line tool that developers run in their terminals and CI",
    "developer-tools/config-parser": "the configuration loader of a developer tool",
    "developer-tools/log-analysis": "a log analysis tool that operations engineers run on "
                                    "service logs",
    "developer-tools/mock-server": "a mock server that stands in for real services during "
                                   "integration tests",
    "data-analysis/data-cleaning": "the data-cleaning stage of an analytics team's workflow",
    "data-analysis/statistical-aggregation": "the aggregation layer of an analytics dashboard",
    "data-analysis/etl-pipeline": "a nightly ETL pipeline that loads the data warehouse",
    "games/game-loop": "the simulation loop of a small multiplayer game",
    "games/collision-detection": "the physics layer of a 2D game",
    "games/save-system": "the save system of a game, which stores and restores player progress",
    "general-utilities/file-conversion": "a file conversion utility",
    "general-utilities/caching": "a caching layer in front of a slow backend",
    "general-utilities/task-scheduling": "a task scheduler for background jobs",
    "general-utilities/markdown-rendering": "a Markdown rendering utility for documentation",
}
"""``domain/scenario`` → the setting a requirement is placed in (used by domain migration)."""

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


LEXICON: dict[str, frozenset[str]] = {
    "e-commerce": _words(
        "product products order orders cart checkout coupon voucher shop store stores marketplace "
        "inventory stock price category catalogue catalog purchase shopper bookshop"),
    "social": _words(
        "user users post posts feed timeline profile creator comment comments notification "
        "notifications friend friends photo follower member members message push e-mail blog "
        "sharing"),
    "finance": _words(
        "account accounts payment bank invoice exchange rate ledger expense brokerage payout "
        "amount transaction bookkeeping"),
    "developer-tools": _words(
        "client server service gateway api build cli log regression contract fixture mock "
        "platform open-source config worker shipper"),
    "data-analysis": _words(
        "etl report reports category region measure csv column dataset job summaries"),
    "games": _words(
        "game save-game player players leaderboard level lobby indie"),
    "general-utilities": _words(
        "file files cache task tasks library archive folder session golden"),
}
"""Words that mark a slot value (a domain noun) as belonging to a domain."""

_WORD = re.compile(r"[a-z0-9][a-z0-9-]*")


def fits_domain(value: object, domain: str) -> bool:
    """True when a string slot value contains a word of ``domain``'s lexicon."""
    if not isinstance(value, str):
        return False
    words = set(_WORD.findall(value.lower()))
    words |= {part for word in words for part in word.split("-")}
    return bool(words & LEXICON[domain])


def preferred_values(values: Iterable[object], domain: str) -> list[object]:
    """The values that fit ``domain``, or all of them when none does."""
    values = list(values)
    fitting = [v for v in values if fits_domain(v, domain)]
    return fitting or values


def setting_text(domain: str, scenario: str) -> str:
    """One paragraph placing a requirement in its domain and scenario."""
    where = SETTINGS.get(scenario, f"a {DOMAIN_LABELS[domain]} product")
    return (f"Setting: this component is part of {where} ({DOMAIN_LABELS[domain]}, "
            f"scenario {scenario.split('/', 1)[1]}).")


def scenarios_of(domain: str) -> tuple[str, ...]:
    """Every scenario of a domain as ``domain/scenario``."""
    return tuple(f"{domain}/{s}" for s in DOMAINS[domain])
