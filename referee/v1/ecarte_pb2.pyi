from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EcarteConfig(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcarteState(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcarteAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcarteEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EcarteView(_message.Message):
    __slots__ = ("hand",)
    HAND_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    def __init__(self, hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ...) -> None: ...
