"""A desktop notification server for hark's tests: it owns org.freedesktop.Notifications on the
session bus named by DBUS_SESSION_BUS_ADDRESS (a private `dbus-daemon` the test starts) and
prints each notification it is sent as one JSON line, so a test sees what the real
`notify-send` (libnotify-bin) delivered. Built on dbus-next (PyPI, installed by
`scripts/setup.sh --test` into `.local/venv`), which does the D-Bus wire protocol.

The interface is the freedesktop Desktop Notifications Specification (1.2): Notify,
GetCapabilities, GetServerInformation, CloseNotification, and the NotificationClosed signal.
libnotify's notify-send (GNOME/libnotify, tools/notify-send.c and libnotify/notify.c) asks
GetServerInformation first and fails when nothing answers, then calls Notify.

Usage: notifications.py  -- prints "ready" once it owns the name, then one line per Notify:
{"app_name": ..., "summary": ..., "body": ..., "urgency": N}. Serves until stdin closes.
"""

import asyncio
import json
import sys

from dbus_next.aio import MessageBus
from dbus_next.service import ServiceInterface, method, signal


class Notifications(ServiceInterface):
    def __init__(self):
        super().__init__('org.freedesktop.Notifications')
        self.last_id = 0

    @method()
    def Notify(self, app_name: 's', replaces_id: 'u', app_icon: 's', summary: 's', body: 's',
               actions: 'as', hints: 'a{sv}', expire_timeout: 'i') -> 'u':
        self.last_id += 1
        urgency = hints['urgency'].value if 'urgency' in hints else None
        print(json.dumps({'app_name': app_name, 'summary': summary, 'body': body, 'urgency': urgency}),
              flush=True)
        return self.last_id

    @method()
    def GetCapabilities(self) -> 'as':
        return ['body']

    @method()
    def GetServerInformation(self) -> 'ssss':
        return ['hark-test-notifications', 'hark', '1.0', '1.2']

    @method()
    def CloseNotification(self, id: 'u'):
        self.NotificationClosed(id, 3)

    @signal()
    def NotificationClosed(self, id, reason) -> 'uu':
        return [id, reason]


async def main():
    bus = await MessageBus().connect()
    bus.export('/org/freedesktop/Notifications', Notifications())
    await bus.request_name('org.freedesktop.Notifications')
    print('ready', flush=True)
    # Until the test closes our stdin (or is gone).
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


asyncio.run(main())
