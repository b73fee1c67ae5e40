#!/usr/bin/env python3
"""Fills a hark history database (schema made by hark itself) with N messages of plausible
chat text, in threads of 20 across 4 sessions, for the search benchmark.
  make_history.py DB N"""
import random, sqlite3, sys, time

db, count = sys.argv[1], int(sys.argv[2])
random.seed(42)
words = ("the a to of and in is it you that for on with as are this be at or have from not by but "
         "order refund invoice shipping build deploy failed error timeout cluster kubernetes pipeline "
         "customer contact meeting tomorrow report summary release branch merge review database index "
         "query latency memory cache network token model prompt agent workflow webhook jenkins monica "
         "aardvark zebra quartz").split()
rare = ["xylophone", "quasar", "marmalade", "sphinx", "zeppelin"]
connection = sqlite3.connect(db)
connection.execute("PRAGMA journal_mode=WAL")
connection.execute("PRAGMA synchronous=OFF")
sessions = ["helpdesk", "llama", "ci", "notes"]
for name in sessions:
    connection.execute("INSERT OR IGNORE INTO sessions(name, kind, created_at) VALUES (?, 'openai', 0)", (name,))
now = time.time() - count
thread_id = None
batch = []
for index in range(count):
    if index % 20 == 0:
        session = sessions[(index // 20) % len(sessions)]
        cursor = connection.execute("INSERT INTO threads(session, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                                    (session, f"thread {index // 20}", now + index, now + index))
        thread_id = cursor.lastrowid
    length = random.randint(8, 60)
    text = " ".join(random.choice(words) for _ in range(length))
    if index % 1000 == 7:
        text += " " + random.choice(rare)
    role = "user" if index % 2 == 0 else "assistant"
    batch.append((thread_id, session, role, text, "complete", now + index, now + index))
    if len(batch) == 10000:
        connection.executemany("INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
        connection.commit()
        batch = []
if batch:
    connection.executemany("INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
connection.commit()
connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
connection.close()
