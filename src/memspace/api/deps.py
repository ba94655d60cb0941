"""FastAPI dependencies: the container and the caller, handed out per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from memspace.domain.errors import Unauthenticated
from memspace.services.access import Principal
from memspace.startup.container import Container
from memspace.surfaces.identity import PRINCIPAL_STATE_KEY


def get_container(request: Request) -> Container:
    container: Container = request.app.state.container
    return container


def get_principal(request: Request) -> Principal:
    principal = request.scope.get("state", {}).get(PRINCIPAL_STATE_KEY)
    if not isinstance(principal, Principal):
        raise Unauthenticated("send `Authorization: Bearer msk_...`")
    return principal


ContainerDep = Annotated[Container, Depends(get_container)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
