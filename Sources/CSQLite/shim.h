#ifndef HARK_CSQLITE_SHIM_H
#define HARK_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline int hark_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}
// SQLITE_STATIC: SQLite reads the caller's bytes in place (no copy), so they must stay valid
// until the statement has been stepped and reset. For slices of a large reply.
static inline int hark_sqlite3_bind_text_in_place(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_STATIC);
}
static inline int hark_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *data, int length) {
    return sqlite3_bind_blob(stmt, index, data, length, SQLITE_TRANSIENT);
}
// sqlite3_db_config is variadic.
static inline int hark_sqlite3_skip_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
// sqlite3_config is variadic too. Both must run before SQLite's first use in the process.
static inline int hark_sqlite3_config_pagecache(void *memory, int slotSize, int slots) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, memory, slotSize, slots);
}
static inline int hark_sqlite3_pcache_header_size(void) {
    int size = 0;
    return sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &size) == SQLITE_OK ? size : -1;
}
#endif
