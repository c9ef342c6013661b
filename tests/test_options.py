"""What ListGames advertises of each option is what a configuration gets: the range of an
integer (its ends accepted, beyond them refused on that field), the choices of an enum,
the default (an unset field configures the game as the advertised default does).

A client that builds its settings screen from ListGames (min, max, choices, default)
must never offer a value the referee refuses, nor miss one it accepts."""

from __future__ import annotations

from typing import Any

import pytest

from referee.codec import all_codecs
from referee.games.base import InvalidInput, OptionSpec, OptionType
from referee.v1 import earl_of_coventry_pb2, referee_pb2

CODECS = {c.game_id: c for c in all_codecs()}
CUSTOM_STYLE = earl_of_coventry_pb2.EARL_OF_COVENTRY_CALL_STYLE_CUSTOM


def options(*types: OptionType) -> list[Any]:
    return [
        pytest.param(game, o, id=f"{game}.{o.name}")
        for game, c in CODECS.items()
        for o in c.rules.options
        if not types or o.type in types
    ]


def config(game: str, **fields: Any) -> referee_pb2.GameConfig:
    msg = referee_pb2.GameConfig()
    getattr(msg, game).SetInParent()
    for name, value in fields.items():
        if isinstance(value, list):
            getattr(getattr(msg, game), name).extend(value)
        else:
            setattr(getattr(msg, game), name, value)
    return msg


def decode(game: str, **fields: Any) -> Any:
    return CODECS[game].decode_config(config(game, **fields), "config")


def refused_fields(game: str, **fields: Any) -> list[str]:
    with pytest.raises(InvalidInput) as e:
        decode(game, **fields)
    return [v.field for v in e.value.violations]


def companions(game: str, option: OptionSpec, value: Any = None) -> dict[str, Any]:
    """Settings a value of an option needs: a dealer among the most seats (C-SEAT-2,
    E-SEAT-2), four couplets with the custom call style (C-VAR-5)."""
    seats = next(o for o in CODECS[game].rules.options if o.name == "seats")
    out: dict[str, Any] = {}
    if option.name == "first_dealer":
        out["seats"] = seats.max
    if option.name == "call_style" and value == CUSTOM_STYLE:
        out["couplet_templates"] = [f"{{rank}} {word}" for word in ("one", "two", "three", "four")]
    return out


@pytest.mark.parametrize(("game", "option"), options(OptionType.INTEGER))
def test_an_integer_option_accepts_its_advertised_range_and_nothing_beyond(
    game: str, option: OptionSpec
) -> None:
    assert option.min <= option.max
    base = companions(game, option)
    for value in {option.min, (option.min + option.max) // 2, option.max}:
        decoded = decode(game, **base, **{option.name: value})
        if value:  # 0 is proto3's "unset" for most fields: the default, checked below
            assert getattr(decoded, option.name) == value
    field = f"config.{game}.{option.name}"
    assert refused_fields(game, **base, **{option.name: option.max + 1}) == [field]
    msg = getattr(referee_pb2.GameConfig(), game)
    # Below the range, a value that is not "unset" (0 is, unless the field has presence).
    if option.min >= (1 if msg.DESCRIPTOR.fields_by_name[option.name].has_presence else 2):
        assert refused_fields(game, **base, **{option.name: option.min - 1}) == [field]


@pytest.mark.parametrize(("game", "option"), options(OptionType.STRING_LIST))
def test_a_list_option_takes_its_advertised_number_of_entries(
    game: str, option: OptionSpec
) -> None:
    """min and max count the entries (C-VAR-5: four couplets with the custom style)."""
    assert option.name == "couplet_templates" and 1 <= option.min <= option.max
    custom = {"call_style": CUSTOM_STYLE}

    def entries(k: int) -> list[str]:
        return [f"{{rank}} entry {i}" for i in range(k)]

    for k in (option.min, option.max):
        assert len(getattr(decode(game, **custom, **{option.name: entries(k)}), option.name)) == k
    field = f"config.{game}.{option.name}"
    for k in (option.min - 1, option.max + 1):
        assert refused_fields(game, **custom, **{option.name: entries(k)}) == [field]


@pytest.mark.parametrize(("game", "option"), options(OptionType.ENUM))
def test_an_enum_option_accepts_its_advertised_choices_only(game: str, option: OptionSpec) -> None:
    enum = getattr(referee_pb2.GameConfig(), game).DESCRIPTOR.fields_by_name[option.name]
    names = {v.name for v in enum.enum_type.values}
    assert set(option.choices) <= names and option.default in option.choices
    values = {enum.enum_type.values_by_name[c].number for c in option.choices}
    decoded = {
        repr(getattr(decode(game, **companions(game, option, v), **{option.name: v}), option.name))
        for v in values
    }
    assert len(decoded) == len(values)  # every choice configures something different
    beyond = max(v.number for v in enum.enum_type.values) + 1
    assert refused_fields(game, **{option.name: beyond}) == [f"config.{game}.{option.name}"]


@pytest.mark.parametrize(("game", "option"), options())
def test_an_unset_option_is_its_advertised_default(game: str, option: OptionSpec) -> None:
    if option.default == "":
        # No default value: the option is absent unless set (the seats cut for the dealer;
        # the rule text's couplets).
        assert option.type in (OptionType.INTEGER, OptionType.STRING_LIST)
        return
    field = getattr(referee_pb2.GameConfig(), game).DESCRIPTOR.fields_by_name[option.name]
    value: Any
    if option.type is OptionType.INTEGER:
        value = int(option.default)
    elif option.type is OptionType.BOOL:
        assert option.default in ("true", "false")
        value = option.default == "true"
    elif option.type is OptionType.ENUM:
        value = field.enum_type.values_by_name[option.default].number
    else:
        pytest.fail(f"a default for a {option.type.name} option")
    assert decode(game) == decode(game, **{option.name: value}), option.name


def test_the_rules_default_configuration_is_the_advertised_one() -> None:
    """A configuration made in Python (``EcarteConfig()``, ``EarlConfig()``) is the one an
    empty GameConfig gets, defaults and all (C-VAR-6's open hands off, and so on)."""
    from referee.games.earl_of_coventry.state import EarlConfig
    from referee.games.ecarte.state import EcarteConfig

    assert decode("ecarte") == EcarteConfig()
    assert decode("earl_of_coventry") == EarlConfig()
