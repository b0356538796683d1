"""xdist scheduling of an N-version run: a task's items on one worker, in order.

xdist's ``loadgroup`` groups items by the ``@group`` suffix its workers add to the node ids
of ``xdist_group``-marked items; with pytest 9.2 that suffix is lost (xdist 3.8 sets
``item._nodeid``, which pytest 9.2 no longer reads), so the plugin's scheduler takes the
group of an N-version item from its id (``[nversion/TASK/...]``) and falls back to xdist's
rule for every other item.
"""

from __future__ import annotations

from xdist.scheduler import LoadGroupScheduling

from ..models import NVERSION_DATASET, ItemId


class TaskGroupScheduling(LoadGroupScheduling):
    """``loadgroup`` whose scope of an N-version item is its task."""

    def _split_scope(self, nodeid: str) -> str:
        found = ItemId.in_node_id(nodeid)
        if found is not None and found.dataset == NVERSION_DATASET:
            return str(found.nversion_task)
        return super()._split_scope(nodeid)
