"""Words from the log are shown as written, never read as Textual markup.

Nova's advice names the ``[neutron]`` section of nova.conf: read as markup, the
brackets vanish and the next step says "add to nova.conf : auth_url", which sends
the operator to the wrong place.
"""

from __future__ import annotations

import pytest
from textual.widgets import OptionList
from textual.widgets._toast import Toast

from osdoctor.tui.screens.dialogs import ConfirmRun
from tests.helpers.public_logs import public_logs
from tests.tui.conftest import steady_app, wait_until
from tests.tui.screen import screen_text, settle

pytestmark = pytest.mark.anyio

NOVA_500 = public_logs() / "osc-2022-server-create-500-nova-missing-neutron-auth.log"


async def test_next_steps_keep_square_brackets() -> None:
    app = steady_app(log=NOVA_500)
    async with app.run_test(size=(160, 50)) as pilot:
        steps = app.main.query_one("#steps", OptionList)
        # the list is drawn once it holds the steps and the layout gave it room
        await wait_until(pilot, lambda: steps.option_count > 0 and steps.size.height > 0)
        await settle(pilot)
        text = screen_text(app)
        assert "nova.conf [neutron]:" in text
        assert "nova.conf :" not in text


async def test_toast_keeps_square_brackets() -> None:
    app = steady_app(log=NOVA_500)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        app.main.say("not found: [neutron] auth_url")
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)))
        await settle(pilot)
        assert "not found: [neutron] auth_url" in screen_text(app)


async def test_confirm_dialog_shows_the_command_as_typed() -> None:
    app = steady_app(log=NOVA_500)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        app.push_screen(ConfirmRun(["openstack", "server", "delete", "[bold]vm[/bold]"], "delete"))
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRun))
        await settle(pilot)
        assert "openstack server delete [bold]vm[/bold]" in screen_text(app)


async def test_confirm_dialog_shows_the_whole_command_on_a_narrow_terminal() -> None:
    """At 80 columns the command wraps inside the dialog instead of being cut at
    its border: what is confirmed is read whole."""
    argv = ["openstack", "server", "create", "--image", "cirros", "--flavor", "m1.small"]
    argv += ["--network", "private", "--wait", "web-server-final-word"]
    app = steady_app(log=NOVA_500)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.main.state == "read")
        app.push_screen(ConfirmRun(argv, "create"))
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRun))
        await settle(pilot)
        text = screen_text(app)
        assert "openstack server create --image cirros --flavor m1.small" in text
        assert "--network private --wait web-server-final-word" in text
        assert "terminal. Run it?" in text
