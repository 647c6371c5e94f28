/*
 * settings.c: the client's settings (initializationOptions and the castls
 * configuration section), each checked, and a refused one said aloud.
 */
#include "server_int.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

void lsp__settings_defaults(Settings *st)
{
	memset(st, 0, sizeof(*st));
	st->budget_tokens = DEFAULT_BUDGET_TOKENS;
	st->log_level = 1;
}

void lsp__settings_free(Settings *st)
{
	xfree(st->exclude);
	xfree(st->db_path);
}

static const char *const log_levels[] = {"error", "warn", "info", "debug"};

/* Tells the user that setting `name` was given a value it cannot take,
 * and what is used instead: the setting is otherwise silently ignored. */
static void setting_refused(Server *s, const char *name, const cJSON *v,
			    const char *want, const char *used)
{
	char *given = cJSON_PrintUnformatted(v);
	cJSON *p = cJSON_CreateObject();
	Buf m = {0};

	buf_printf(&m, "castls: setting %s: %.60s is not %s; using %s", name,
		   given ? given : "?", want, used);
	cJSON_AddNumberToObject(p, "type", 2); /* Warning */
	cJSON_AddStringToObject(p, "message", m.data);
	lsp__notify(s, "window/showMessage", p);
	lsp__log(s, 1, "%s", m.data);
	xfree(given);
	buf_free(&m);
}

/* The whole-number settings, each within its range. */
static const struct {
	const char *name;
	double lo, hi;
	size_t at; /* offset in Settings */
	bool wide; /* a uint64_t there, else a uint32_t */
	bool reindex;
	uint64_t zero; /* what 0 (the default) stands for */
} numbers[] = {
    {"maxChunkSize", 50, 100000, offsetof(Settings, max_chunk_size), false,
     true, CHUNKER_DEFAULT_MAX_SIZE},
    {"budgetTokens", 1, MAX_BUDGET_TOKENS, offsetof(Settings, budget_tokens),
     false, false, DEFAULT_BUDGET_TOKENS},
    {"maxFileSize", 1, CHUNKER_MAX_INPUT, offsetof(Settings, max_file_size),
     true, true, INDEX_DEFAULT_MAX_FILE},
};

/* Applies the number settings of obj; true when one that changes the
 * index changed. */
static bool numbers_apply(Server *s, const cJSON *obj)
{
	bool reindex = false;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(*numbers); i++) {
		const cJSON *v =
		    cJSON_GetObjectItemCaseSensitive(obj, numbers[i].name);
		char *at = (char *)&s->settings + numbers[i].at;
		uint64_t now =
		    numbers[i].wide ? *(uint64_t *)at : *(uint32_t *)at;
		char want[64], used[32];

		if (!v || cJSON_IsNull(v))
			continue;
		if (!cJSON_IsNumber(v) || v->valuedouble < numbers[i].lo ||
		    v->valuedouble > numbers[i].hi ||
		    v->valuedouble != (double)(uint64_t)v->valuedouble) {
			snprintf(want, sizeof(want),
				 "a whole number from %.0f to %.0f",
				 numbers[i].lo, numbers[i].hi);
			snprintf(
			    used, sizeof(used), "%llu",
			    (unsigned long long)(now ? now : numbers[i].zero));
			setting_refused(s, numbers[i].name, v, want, used);
			continue;
		}
		if ((uint64_t)v->valuedouble == now)
			continue;
		if (numbers[i].wide)
			*(uint64_t *)at = (uint64_t)v->valuedouble;
		else
			*(uint32_t *)at = (uint32_t)v->valuedouble;
		reindex |= numbers[i].reindex;
	}
	return reindex;
}

static void log_level_apply(Server *s, const cJSON *v)
{
	if (!v || cJSON_IsNull(v))
		return;
	for (int i = 0; cJSON_IsString(v) && i < 4; i++)
		if (strcmp(v->valuestring, log_levels[i]) == 0) {
			s->settings.log_level = i;
			return;
		}
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 3) {
		s->settings.log_level = v->valueint;
		return;
	}
	setting_refused(
	    s, "logLevel", v, "one of \"error\", \"warn\", \"info\", \"debug\"",
	    log_levels[s->settings.log_level < 0 ? 0 : s->settings.log_level]);
}

/* Applies exclude (a pattern or a list of them); true when it changed. */
static bool exclude_apply(Server *s, const cJSON *v)
{
	Settings *st = &s->settings;
	const cJSON *e;
	const char *now;
	Buf b = {0};
	bool changed;

	if (!v || cJSON_IsNull(v))
		return false;
	if (!cJSON_IsArray(v) && !cJSON_IsString(v)) {
		setting_refused(s, "exclude", v,
				"a gitignore pattern or a list of them",
				st->exclude ? "the patterns before" : "none");
		return false;
	}
	if (cJSON_IsString(v))
		buf_printf(&b, "%s\n", v->valuestring);
	cJSON_ArrayForEach(e, v) if (cJSON_IsString(e))
	    buf_printf(&b, "%s\n", e->valuestring);
	now = b.len ? b.data : NULL;
	/* An empty list is no excludes, same as none sent. */
	changed = (st->exclude == NULL) != (now == NULL) ||
		  (now && strcmp(st->exclude, now));
	if (changed) {
		xfree(st->exclude);
		st->exclude = now ? buf_take(&b) : NULL;
	}
	buf_free(&b);
	return changed;
}

/* Applies the settings in obj (either the castls section itself or an
 * object holding a "castls" member), saying which values it refuses.
 * Returns true when a setting that changes the index (chunk size,
 * excludes, file size) changed. */
bool lsp__settings_apply(Server *s, const cJSON *obj)
{
	Settings *st = &s->settings;
	const cJSON *v, *sec = cJSON_GetObjectItemCaseSensitive(obj, "castls");
	bool reindex;

	if (cJSON_IsObject(sec))
		obj = sec;
	if (!cJSON_IsObject(obj))
		return false;
	reindex = numbers_apply(s, obj);
	reindex |=
	    exclude_apply(s, cJSON_GetObjectItemCaseSensitive(obj, "exclude"));
	v = cJSON_GetObjectItemCaseSensitive(obj, "dbPath");
	if (cJSON_IsString(v) && *v->valuestring) {
		xfree(st->db_path);
		st->db_path = xstrdup(v->valuestring);
	} else if (v && !cJSON_IsNull(v) && !cJSON_IsString(v)) {
		setting_refused(s, "dbPath", v, "a path",
				st->db_path ? st->db_path : "the default");
	}
	log_level_apply(s, cJSON_GetObjectItemCaseSensitive(obj, "logLevel"));
	return reindex;
}
