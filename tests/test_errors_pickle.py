"""Errors cross process boundaries whole: a Ray task, a multiprocessing worker, pickle.

A refused setting (:class:`SettingError`, and :class:`UnknownModelError` with it) raised inside
a Ray worker is pickled to reach the driver; its ``__init__`` takes the setting and template,
so the default reduction (the message alone) failed to rebuild it there.
"""

from __future__ import annotations

import pickle

from coordqa.errors import ConfigError, ModelError, SettingError, UnknownModelError


def test_a_refused_setting_survives_pickling_with_its_words() -> None:
    refused = SettingError(
        "policy.timeout_s", "leave {setting} out, or {api_base}", also=["api_base"]
    )
    again = pickle.loads(pickle.dumps(refused))
    assert type(again) is SettingError and str(again) == str(refused)
    assert again.named("--timeout") == refused.named("--timeout")
    assert again.as_options({"api_base": "--api-base"}) == refused.as_options(
        {"api_base": "--api-base"}
    )


def test_an_unknown_model_survives_pickling_as_both_kinds() -> None:
    unknown = UnknownModelError(
        "model", "unknown model 'randon' (with {api_base})", also=["api_base"]
    )
    again = pickle.loads(pickle.dumps(unknown))
    assert isinstance(again, ConfigError) and isinstance(again, ModelError)
    assert str(again) == str(unknown) == "unknown model 'randon' (with api_base)"
