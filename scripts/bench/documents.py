#!/usr/bin/env python3
"""The documents section: index 10,000 Markdown files (~100 MB) with `/docs add`,
time `hark ask` on that index against the sqlite3 CLI running the same FTS5 query, and time
the form answer reader on 1,000 answers. Self-contained: run.py calls it and keeps its JSON.
  documents.py HARK READER_BENCH BENCH_DIR"""
import json, os, random, shutil, subprocess, sys, tempfile, time

# Absolute: a relative XDG_DATA_HOME is ignored (XDG spec), which would index into ~/.local/share.
HARK, READER, BENCH = (os.path.abspath(argument) for argument in sys.argv[1:4])
HERE = os.path.dirname(__file__)
CORPUS = os.path.join(BENCH, "documents-corpus")
FILES, FOLDERS = 10_000, 100

def vocabulary():
    """Words with a natural (Zipf) spread: English function words most often, then topic words,
    then 30,000 made-up words, so that a question's words are in some passages, not most."""
    function = ("the of and to a in is it that for on was with as be at by this are from or have an not but "
                "we they which you their were has all can will there been more if when so would about").split()
    topic = ("report project team customer meeting contract invoice travel expense receipt hotel flight train "
             "booking policy holiday manager office printer wifi password badge laptop support ticket incident "
             "outage backup restore security audit release deploy build pipeline review database index query "
             "latency memory cache network quarter milestone deadline schedule vendor payment refund shipping "
             "warehouse inventory training onboarding benefits salary pension insurance").split()
    filler = [f"w{n}" for n in range(200)]  # the many common words between
    topic_ranked = filler[:150] + topic[:40] + filler[150:] + ["budget"] + topic[40:] + ["approval"]
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "zu", "fe", "gi", "ho", "ja", "qu"]
    random.seed(17)
    made = set()
    while len(made) < 30_000:
        made.add("".join(random.choice(syllables) for _ in range(random.randint(2, 4))))
    words = function + topic_ranked + sorted(made)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    return words, weights

def corpus():
    """10,000 Markdown files of about 10 KB in 100 folders, made once (a seeded generator)."""
    marker = os.path.join(CORPUS, ".complete")
    if os.path.exists(marker):
        return
    shutil.rmtree(CORPUS, ignore_errors=True)
    words, weights = vocabulary()
    random.seed(17)
    rare = ["xylophone", "quasar", "marmalade", "sphinx", "zeppelin"]
    for folder in range(FOLDERS):
        os.makedirs(os.path.join(CORPUS, f"team{folder:02d}"))
    for index in range(FILES):
        lines = [f"# Document {index}: " + " ".join(random.choices(words, weights, k=3)), ""]
        for section in range(6):
            lines += [f"## Section {section}: " + " ".join(random.choices(words, weights, k=2)), ""]
            for _ in range(3):
                paragraph = " ".join(random.choices(words, weights, k=random.randint(70, 110)))
                if random.random() < 0.002:
                    paragraph += " " + random.choice(rare)
                lines += [paragraph, ""]
        path = os.path.join(CORPUS, f"team{index % FOLDERS:02d}", f"doc{index:05d}.md")
        with open(path, "w") as out:
            out.write("\n".join(lines))
    open(marker, "w").close()

def size():
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(CORPUS)
               for name in names if name.endswith(".md"))

def fresh_home():
    path = tempfile.mkdtemp(prefix="home-", dir=BENCH)
    env = dict(os.environ, XDG_CONFIG_HOME=f"{path}/config", XDG_DATA_HOME=f"{path}/data", NO_COLOR="1")
    subprocess.run([HARK, "version"], env=env, check=True, capture_output=True)
    return path, env

def main():
    corpus()
    total = size()
    # Indexing: three fresh histories, each `/docs add` of the whole corpus (median).
    seconds = []
    for _ in range(3):
        path, env = fresh_home()
        started = time.monotonic()
        subprocess.run([HARK, "/docs add " + CORPUS], env=env, check=True, capture_output=True)
        seconds.append(time.monotonic() - started)
    index_s = sorted(seconds)[1]
    database = f"{path}/data/hark/history.db"
    passages = int(subprocess.run(["sqlite3", database, "SELECT count(*) FROM local_chunks"], check=True,
                                  capture_output=True, text=True).stdout)
    # The reference: the sqlite3 CLI (the same SQLite version) storing the same passages in a
    # table of the same shape and indexing them with the same FTS5 tokenizer, then merging
    # the index as hark does: what SQLite alone costs, without reading or cutting any file. With
    # FTS5's settings of hark's large add (DocumentLibrary.mergeSettings): no merging on the
    # way, room for 64 MB of pending terms.
    reference_sql = (f"PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; ATTACH '{database}' AS h; "
                     "CREATE TABLE c(id INTEGER PRIMARY KEY, document_id INTEGER, line_start INTEGER, line_end INTEGER, "
                     "heading TEXT, text TEXT); CREATE VIRTUAL TABLE f USING fts5(heading, text, content='c', "
                     "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'); "
                     "CREATE TRIGGER t AFTER INSERT ON c BEGIN INSERT INTO f(rowid, heading, text) "
                     "VALUES (new.id, new.heading, new.text); END; "
                     "INSERT INTO f(f, rank) VALUES ('automerge', 0); INSERT INTO f(f, rank) VALUES ('hashsize', 67108864); "
                     "BEGIN; INSERT INTO c SELECT id, document_id, line_start, line_end, heading, text FROM h.local_chunks; COMMIT; "
                     "INSERT INTO f(f) VALUES ('optimize');")
    reference = []
    for run in range(3):
        target = os.path.join(BENCH, f"reference-{run}.db")
        started = time.monotonic()
        subprocess.run(["sqlite3", target, reference_sql], check=True, capture_output=True)
        reference.append(time.monotonic() - started)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(target + suffix):
                os.remove(target + suffix)
    reference_s = sorted(reference)[1]
    # /ask on that index without a model, against the sqlite3 CLI running the query it runs for
    # the documents (the notes have their own, on an empty table here).
    question = "which xylophone budget approval"
    fts = '\\"xylophone\\" OR \\"budget\\" OR \\"approval\\"'
    # PassageSearch.keywordPassages: the best 15 by BM25, then the snippets of those.
    sql = ("SELECT c.id, d.name, c.line_start, c.line_end, c.heading, "
           "snippet(local_chunks_fts, 1, char(1), char(2), '…', 24), best.score FROM (SELECT rowid AS id, "
           f"bm25(local_chunks_fts, 2.0, 1.0) AS score FROM local_chunks_fts WHERE local_chunks_fts MATCH '{fts}' "
           "ORDER BY score LIMIT 15) best CROSS JOIN local_chunks_fts ON local_chunks_fts.rowid = best.id "
           f"AND local_chunks_fts MATCH '{fts}' JOIN local_chunks c ON c.id = best.id "
           "JOIN local_documents d ON d.id = c.document_id WHERE d.session = 'local' ORDER BY best.score")
    commands = [f"{HARK} ask '{question}'", f"sqlite3 {database} \"{sql}\""]
    subprocess.run(["hyperfine", "-N", "--style", "none", "--warmup", "3", "--runs", "60", "--output", "null",
                    "--export-json", os.path.join(BENCH, "ask.json"), *commands], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    found = json.loads(subprocess.run([sys.executable, f"{HERE}/percentiles.py", os.path.join(BENCH, "ask.json")],
                                      check=True, capture_output=True, text=True).stdout)
    ask, cli = found[commands[0]], found[commands[1]]
    reader = json.loads(subprocess.run([READER], check=True, capture_output=True, text=True).stdout)
    print(json.dumps({
        "files": FILES, "bytes": total, "passages": passages, "index_s": index_s, "index_mb_s": total / 1e6 / index_s,
        "index_runs_s": seconds,
        "sqlite3_fts5_s": reference_s, "sqlite3_fts5_mb_s": total / 1e6 / reference_s, "index_ratio": reference_s / index_s,
        "ask_p50_ms": ask["p50_ms"], "ask_p99_ms": ask["p99_ms"],
        "sqlite3_p50_ms": cli["p50_ms"], "sqlite3_p99_ms": cli["p99_ms"], "ask_p50_ratio": ask["p50_ms"] / cli["p50_ms"],
        "reader_answers": reader["answers"], "reader_median_ms": reader["median_ms"], "reader_runs": reader["runs"]}, indent=1))

main()
