"""A2A test agents for hark's tests and benchmark, built on the official Python SDK (PyPI
`a2a-sdk`, installed by `scripts/setup.sh --test` into `.local/venv`). The SDK's server does the
whole protocol: the card route, JSON-RPC dispatch (1.0 method names and, with v0.3 compat on,
the 0.3 ones), the SSE framing, task state, cancel and resubscribe. The executors below only
decide what to say.

Usage: agent.py  -- binds 127.0.0.1 on a free port, prints "port N" once it listens, and
serves until killed by its PID (or until the process that started it is gone).

Agents, each under its own path prefix (base URL http://127.0.0.1:N/NAME):
  echo      streaming, card with a 1.0 and a 0.3 JSON-RPC interface; echoes the message as an
            artifact streamed in chunks. The first word picks another behaviour (see Echo).
  plain     capabilities.streaming false: hark must use SendMessage and poll GetTask.
  secure    streaming; its card declares an HTTP bearer scheme and the RPC endpoint wants
            `Authorization: Bearer s3cret-token` (401 otherwise).
  keyed     an API key in the header X-API-Key (k3y).
  querykey  an API key in the query parameter `key` (k3y).
  legacy    a 0.3-only card, served at the older well-known path /.well-known/agent.json only.
  grpc      a card that offers only a gRPC interface.
  gateway   behind a gateway that fails (see FailingGateway): its card is served, its RPC
            endpoint answers HTTP 500 with a body that is not JSON-RPC.
  push      the echo agent with push notifications on (capabilities.pushNotifications), as the
            SDK does them: InMemoryPushNotificationConfigStore keeps the config a message
            carries, BasePushNotificationSender POSTs each task update to its URL with the
            config's token in X-A2A-Notification-Token (a2a/server/tasks/).

POST /release?task=ID lets a task that waits in "later" go on (a test's stand-in for work that
ends while hark is not running).
"""

import asyncio
import json
import os
import re
import socket
import sys

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from a2a.compat.v0_3.conversions import to_compat_agent_card
from a2a.helpers import (
    get_data_parts,
    new_data_part,
    new_raw_part,
    new_text_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    Role,
    SecurityRequirement,
    SecurityScheme,
    StringList,
    Task,
    TaskState,
    TaskStatus,
)

BEARER_TOKEN = 's3cret-token'
API_KEY = 'k3y'

# Per task, the events that let a paused executor go on: set by the request handler below when
# hark resubscribes (a dropped stream) or polls (a non-streaming agent).
resumed: dict[str, asyncio.Event] = {}
polled: dict[str, asyncio.Event] = {}
# The tasks waiting in "later", released by POST /release.
waiting_later: set[str] = set()
# Per context, the messages seen: the agent's memory, which hark's threads keep apart.
memory: dict[str, list[str]] = {}
# Tasks whose CancelTask hangs (the `stuck` command).
stuck: set[str] = set()


# Per task, the form it waits for an answer to ("form", "approve"); a task not here asked "Which city?".
asked_forms: dict[str, str] = {}

# The form shape of the A2A samples' reimbursement agent (a2aproject/a2a-samples,
# samples/python/agents/adk_expense_reimbursement/agent.py `return_form`): a JSON schema under
# "form", the values already known under "form_data" (placeholders in <> for the rest) and the
# agent's instructions; its executor sends it as the DataPart of an input_required status.
FORM = {
    'type': 'form',
    'form': {
        'type': 'object',
        'properties': {
            'name': {'type': 'string', 'title': 'Name', 'description': 'Your name'},
            'count': {'type': 'integer', 'title': 'Count', 'description': 'How many tickets', 'minimum': 1, 'maximum': 9},
            'request_id': {'type': 'string', 'title': 'Request ID', 'description': 'Request id'},
        },
        'required': ['name', 'count', 'request_id'],
    },
    'form_data': {'name': '<your name>', 'count': '<how many tickets>', 'request_id': 'request_id_4711'},
    'instructions': 'Who is coming, and how many tickets?',
}

# An approval as a bare JSON schema of one field with fixed choices.
APPROVAL = {
    'type': 'object',
    'title': 'Deploy v2.4.1 to production?',
    'properties': {
        'decision': {'type': 'string', 'oneOf': [{'const': 'approve', 'title': 'Approve'},
                                                 {'const': 'deny', 'title': 'Deny'}]},
    },
    'required': ['decision'],
}


def event_for(table: dict[str, asyncio.Event], task_id: str) -> asyncio.Event:
    return table.setdefault(task_id, asyncio.Event())


def plain_numbers(value):
    """protobuf's Value keeps every number as a double (a2a.helpers get_data_parts): 3.0 back to 3."""
    if isinstance(value, dict):
        return {key: plain_numbers(item) for key, item in value.items()}
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class Echo(AgentExecutor):
    """First word of the message:
    slow     one chunk, then works until canceled (hark's Ctrl-C sends CancelTask)
    stuck    the same, but CancelTask never gets an answer (a server stuck on it)
    ask      input-required "Which city?"; the answer, sent to the same task, completes it
    fail     failed with "the flight API is down"
    reject   rejected with "I only book flights"
    auth     auth-required with "sign in at http://127.0.0.1/login first"
    files    an artifact with a file part (raw bytes) and a data part
    message  a plain Message reply, no task
    drop     one chunk, then waits until hark resubscribes (the test server cuts the stream)
    dropboth the same, and the resubscription is cut too
    memory   "N messages in this context"
    later    one chunk, then waits until hark resubscribes or POST /release, then completes
             with "finished later"
    form     input-required with a form as a data part, in the A2A samples' shape (FORM); the
             answer, sent to the same task, completes it with "task ID got the data part {…}"
             (or "task ID got words: …" when it came as text)
    approve  input-required with a bare JSON schema of one choice, approve or deny (APPROVAL);
             answered as `form` is
    a message with files (hark's /attach) is answered "received NAME (N bytes)" for each
    anything else: echoed back word by word as one artifact (append, lastChunk)
    """

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        words = text.split()
        command = words[0].lower() if words else ''
        memory.setdefault(context.context_id, []).append(text)
        received = [f'received {part.filename} ({len(part.raw)} bytes)' for part in context.message.parts
                    if part.HasField('raw')]
        if received:
            await event_queue.enqueue_event(new_text_message(
                '; '.join(received), context_id=context.context_id, role=Role.ROLE_AGENT))
            return
        if command == 'message':
            await event_queue.enqueue_event(new_text_message(
                'just a message', context_id=context.context_id, role=Role.ROLE_AGENT))
            return
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(Task(
                id=context.task_id, context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED), history=[context.message]))
        elif context.current_task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            # The answer to the question arrives in the same task.
            if asked_forms.pop(context.task_id, None) is None:
                await updater.add_artifact([new_text_part(f'Booked a flight to {text}.')], name='booking')
            else:
                data = get_data_parts(context.message.parts)
                got = (f'got the data part {json.dumps(plain_numbers(data[0]), sort_keys=True)}' if data
                       else f'got words: {text}')
                await updater.add_artifact([new_text_part(f'task {context.task_id} {got}')], name='answer')
            await updater.complete()
            return
        await updater.start_work(updater.new_agent_message([new_text_part('echoing…')]))
        if command == 'stuck':
            stuck.add(context.task_id)
        if command in ('slow', 'stuck'):
            await updater.add_artifact([new_text_part('started ')], artifact_id='slow', name='slow', last_chunk=False)
            await asyncio.Event().wait()  # until canceled
        elif command == 'ask':
            await updater.requires_input(updater.new_agent_message([new_text_part('Which city?')]))
        elif command in ('form', 'approve'):
            asked_forms[context.task_id] = command
            await updater.requires_input(updater.new_agent_message([
                new_text_part(f'task {context.task_id} needs an answer.'),
                new_data_part(FORM if command == 'form' else APPROVAL),
            ]))
        elif command == 'fail':
            await updater.failed(updater.new_agent_message([new_text_part('the flight API is down')]))
        elif command == 'reject':
            await updater.reject(updater.new_agent_message([new_text_part('I only book flights')]))
        elif command == 'auth':
            await updater.requires_auth(updater.new_agent_message([new_text_part('sign in at http://127.0.0.1/login first')]))
        elif command == 'files':
            await updater.add_artifact([
                new_text_part('Here is the report.'),
                new_raw_part(b'flight,price\nZRH-LIS,120\n', media_type='text/csv', filename='report.csv'),
                new_data_part({'flights': 1, 'cheapest': 'ZRH-LIS'}),
            ], name='report')
            await updater.complete()
        elif command in ('drop', 'dropboth'):
            await updater.add_artifact([new_text_part('before the drop, ')], artifact_id='d', name='drop', last_chunk=False)
            await event_for(resumed, context.task_id).wait()
            await updater.add_artifact([new_text_part('after it')], artifact_id='d', append=True, last_chunk=True)
            await updater.complete()
        elif command == 'later':
            await updater.add_artifact([new_text_part('started, ')], artifact_id='later', name='later', last_chunk=False)
            waiting_later.add(context.task_id)
            await event_for(resumed, context.task_id).wait()
            waiting_later.discard(context.task_id)
            await updater.add_artifact([new_text_part('finished later')], artifact_id='later', append=True, last_chunk=True)
            await updater.complete()
        elif command == 'memory':
            count = len(memory[context.context_id])
            await updater.add_artifact([new_text_part(f'{count} messages in this context')], name='memory')
            await updater.complete()
        else:
            for index, word in enumerate(words or ['(nothing)']):
                last = index == len(words) - 1 or not words
                await updater.add_artifact([new_text_part(word + ('' if last else ' '))], artifact_id='echo',
                                           name='echo' if index == 0 else None,
                                           append=index > 0, last_chunk=last)
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id in stuck:
            await asyncio.Event().wait()  # never answers
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


class Plain(AgentExecutor):
    """A non-streaming agent whose work advances once per GetTask: step 1, step 2, the answer."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await event_queue.enqueue_event(Task(
            id=context.task_id, context_id=context.context_id,
            status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED), history=[context.message]))
        for step in ('step 1', 'step 2'):
            await updater.start_work(updater.new_agent_message([new_text_part(step)]))
            poll = event_for(polled, context.task_id)
            poll.clear()
            await poll.wait()
        await updater.add_artifact([new_text_part(f'plain answer to {text}')], name='answer')
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


class Handler(DefaultRequestHandler):
    """The SDK's own handler; it only tells paused executors that hark came back."""

    async def on_subscribe_to_task(self, params, context):
        first = True
        async for event in super().on_subscribe_to_task(params, context):
            yield event
            if first:
                # The snapshot is on its way: what the executor does next reaches this stream.
                first = False
                event_for(resumed, params.id).set()

    async def on_get_task(self, params, context):
        task = await super().on_get_task(params, context)
        event_for(polled, params.id).set()
        return task


class DropStream:
    """ASGI middleware: cuts the response of a streamed "drop" message after its first
    artifact event, as a proxy or a flaky network would (no closing chunk). For "dropboth" it
    cuts the resubscription to that task too."""

    def __init__(self, app):
        self.app = app
        self.cut_again: set[bytes] = set()

    async def __call__(self, scope, receive, send):
        if scope['type'] != 'http' or scope['method'] != 'POST':
            return await self.app(scope, receive, send)
        messages = []
        body = b''
        while True:
            message = await receive()
            messages.append(message)
            body += message.get('body', b'')
            if not message.get('more_body'):
                break
        replay = iter(messages)

        async def replayed():
            try:
                return next(replay)
            except StopIteration:
                return await receive()

        streamed = b'SendStreamingMessage' in body or b'message/stream' in body
        resubscribed = b'SubscribeToTask' in body or b'tasks/resubscribe' in body
        cut = (b'"drop' in body and streamed) or (resubscribed and any(task in body for task in self.cut_again))
        again = b'"dropboth' in body

        async def cutting_send(message):
            await send(message)
            chunk = message.get('body', b'')
            if again and message['type'] == 'http.response.body':
                found = re.search(rb'"(?:taskId|id)": ?"([0-9a-f-]{36})"', chunk)
                if found:
                    self.cut_again.add(found.group(1))
            if message['type'] == 'http.response.body' and b'rtifact' in chunk:
                raise ConnectionAbortedError('test: stream dropped')

        return await self.app(scope, replayed, cutting_send if cut else send)


class RequireAuth:
    """ASGI middleware: the RPC endpoint of a protected agent answers 401 without the
    credentials its card declares; the card itself stays public, as the spec says it may."""

    def __init__(self, app, checks):
        self.app = app
        self.checks = checks  # path prefix -> function(headers, query) -> bool

    async def __call__(self, scope, receive, send):
        if scope['type'] == 'http' and scope['method'] == 'POST':
            for prefix, check in self.checks.items():
                if scope['path'].startswith(prefix):
                    headers = {k.decode().lower(): v.decode() for k, v in scope['headers']}
                    query = dict(pair.split('=', 1) for pair in scope['query_string'].decode().split('&') if '=' in pair)
                    if not check(headers, query):
                        response = JSONResponse({'error': 'missing or wrong credentials'}, status_code=401)
                        return await response(scope, receive, send)
        return await self.app(scope, receive, send)


class FailingGateway:
    """ASGI middleware: a gateway in front of an agent that fails every RPC with HTTP 500 and
    an error body of its own, not a JSON-RPC answer: the first word of the message picks the
    body (`json please`: JSON in a shape of the gateway's own; else several lines of text)."""

    def __init__(self, app, prefix):
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope, receive, send):
        if scope['type'] == 'http' and scope['method'] == 'POST' and scope['path'].startswith(self.prefix):
            body = b''
            while True:
                message = await receive()
                body += message.get('body', b'')
                if not message.get('more_body'):
                    break
            if b'json please' in body:
                response = JSONResponse({'code': 'UPSTREAM_OVERLOADED', 'retry_in': 30}, status_code=500)
            else:
                response = PlainTextResponse('agent pool exhausted: 0 of 4 workers free\n'
                                             'Traceback (most recent call last):\n  File "gateway.py"\n', status_code=500)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)


def card(base, name, *, streaming=True, push=False, interfaces=None, schemes=None, requirement=None):
    return AgentCard(
        name=f'{name} agent',
        description=f'The {name} test agent of hark',
        version='1.0.0',
        supported_interfaces=interfaces or [
            AgentInterface(url=f'{base}/{name}/', protocol_binding='JSONRPC', protocol_version='1.0'),
            AgentInterface(url=f'{base}/{name}/', protocol_binding='JSONRPC', protocol_version='0.3'),
        ],
        capabilities=AgentCapabilities(streaming=streaming, push_notifications=push),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain', 'application/json'],
        skills=[AgentSkill(id='echo', name='Echo', description='says back what it hears',
                           tags=['test'], examples=['hello there']),
                AgentSkill(id='form', name='Form', description='asks a form of a few fields as a data part, '
                           'or an approval', tags=['test'], examples=['form', 'approve'])],
        security_schemes=schemes or {},
        security_requirements=[SecurityRequirement(schemes={requirement: StringList()})] if requirement else [],
    )


def routes(base):
    store = InMemoryTaskStore()
    made = []

    def agent(name, executor, agent_card, legacy_card=False, push=False):
        pushing = {}
        if push:
            configs = InMemoryPushNotificationConfigStore()
            pushing = {'push_config_store': configs,
                       'push_sender': BasePushNotificationSender(httpx.AsyncClient(), configs)}
        handler = Handler(agent_executor=executor, task_store=store, agent_card=agent_card, **pushing)
        if legacy_card:
            # Only the 0.3 shape (url, preferredTransport, protocolVersion, security), as the
            # SDK itself writes it (a2a/compat/v0_3/conversions.py to_compat_agent_card), at the
            # older well-known path: an agent built before protocol 1.0.
            legacy = to_compat_agent_card(agent_card).model_dump(exclude_none=True)
            made.append(Route(f'/{name}/.well-known/agent.json', lambda request: JSONResponse(legacy)))
        else:
            made.extend(create_agent_card_routes(agent_card, card_url=f'/{name}/.well-known/agent-card.json'))
        made.extend(create_jsonrpc_routes(handler, rpc_url=f'/{name}/', enable_v0_3_compat=True))

    agent('echo', Echo(), card(base, 'echo'))
    agent('plain', Plain(), card(base, 'plain', streaming=False))
    agent('push', Echo(), card(base, 'push', push=True), push=True)
    agent('secure', Echo(), card(base, 'secure', schemes={
        'bearer': SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme='Bearer', bearer_format='opaque')),
    }, requirement='bearer'))
    agent('keyed', Echo(), card(base, 'keyed', schemes={
        'apikey': SecurityScheme(api_key_security_scheme=APIKeySecurityScheme(location='header', name='X-API-Key')),
    }, requirement='apikey'))
    agent('querykey', Echo(), card(base, 'querykey', schemes={
        'apikey': SecurityScheme(api_key_security_scheme=APIKeySecurityScheme(location='query', name='key')),
    }, requirement='apikey'))
    agent('legacy', Echo(), card(base, 'legacy', interfaces=[
        AgentInterface(url=f'{base}/legacy/', protocol_binding='JSONRPC', protocol_version='0.3'),
    ]), legacy_card=True)
    agent('gateway', Echo(), card(base, 'gateway'))
    agent('grpc', Echo(), card(base, 'grpc', interfaces=[
        AgentInterface(url='127.0.0.1:50051', protocol_binding='GRPC', protocol_version='1.0'),
    ]))
    made.append(Route('/release', release, methods=['POST']))
    return made


async def release(request):
    """Lets the task named by `?task=ID` that waits in "later" go on (tests run side by side)."""
    task_id = request.query_params.get('task', '')
    if task_id not in waiting_later:
        return JSONResponse({'error': f'no task {task_id} waits in "later"'}, status_code=404)
    event_for(resumed, task_id).set()
    return JSONResponse({'released': task_id})


async def serve(server, sock):
    # Not outlive the test run that started us, however it ended (it kills us by PID when it
    # can): once a second, look whether our parent is still there.
    parent = os.getppid()

    async def watch():
        while os.getppid() == parent:
            await asyncio.sleep(1)
        os._exit(0)

    watcher = asyncio.create_task(watch())
    await server.serve(sockets=[sock])
    watcher.cancel()


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    base = f'http://127.0.0.1:{port}'
    app = Starlette(routes=routes(base))
    app = RequireAuth(FailingGateway(DropStream(app), '/gateway/'), {
        '/secure/': lambda h, q: h.get('authorization') == f'Bearer {BEARER_TOKEN}',
        '/keyed/': lambda h, q: h.get('x-api-key') == API_KEY,
        '/querykey/': lambda h, q: q.get('key') == API_KEY,
    })
    # Listening already: a client that connects now waits in the backlog until uvicorn serves.
    print(f'port {port}', flush=True)
    config = uvicorn.Config(app, log_level='warning', access_log=False, lifespan='off')
    asyncio.run(serve(uvicorn.Server(config), sock))


if __name__ == '__main__':
    sys.exit(main())
