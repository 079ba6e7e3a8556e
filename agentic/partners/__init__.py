"""Non-LLM neural partners: BC and human-proxy Overcooked players, SAD and OBL Hanabi players.

Every partner is a player (``coordqa play``, agentic runs and grids use them by name) through
the ``partners`` entry point of the player registry (:data:`PARTNERS`), without importing torch,
overcooked-ai or pyhanabi: those load when a partner is built or trained. ``list_partners()``
says which are ready and how to make the others ready (train a BC model, register the
authors' SAD/OBL weight files).
"""

from coordqa.agentic.partners.bc import BCCheckpoint, EpochReport, TrainConfig, train_bc
from coordqa.agentic.partners.hanabi_nets import WeightsError, load_hanabi_net
from coordqa.agentic.partners.registry import (
    PARTNERS,
    HanabiEntry,
    PartnerInfo,
    PartnerNotReadyError,
    add_hanabi,
    hanabi_entries,
    list_partners,
    partner_info,
    partner_players,
    remove_hanabi,
)

__all__ = [
    "PARTNERS",
    "BCCheckpoint",
    "EpochReport",
    "HanabiEntry",
    "PartnerInfo",
    "PartnerNotReadyError",
    "TrainConfig",
    "WeightsError",
    "add_hanabi",
    "hanabi_entries",
    "list_partners",
    "load_hanabi_net",
    "partner_info",
    "partner_players",
    "remove_hanabi",
    "train_bc",
]
