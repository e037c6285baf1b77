"""The base class of a proxy: its typed successor and predecessor, set by the router."""

from __future__ import annotations

from typing import Generic, TypeVar

SuccessorT = TypeVar("SuccessorT")
PredecessorT = TypeVar("PredecessorT")


class Proxy(Generic[SuccessorT, PredecessorT]):
    """Subclass it and define only the handlers that change something; all else is forwarded.

    `Proxy[acp.AgentProxy, acp.ClientProxy]` types `self.successor` as the package's `AgentProxy`
    (each call goes to the successor wrapped in `proxy/successor`) and `self.predecessor` as its
    `ClientProxy` (each call goes plain to the conductor, toward the client). A handler for a
    method the predecessor sends takes the `AgentHandler` method's name and types; one for a
    method the successor sends, the `ClientHandler` one's. A notification handler that returns
    without forwarding drops the notification.
    """

    successor: SuccessorT
    predecessor: PredecessorT

    def bind(self, successor: SuccessorT, predecessor: PredecessorT) -> None:
        """Called by the router before the first message: where calls to each side go."""
        self.successor = successor
        self.predecessor = predecessor
