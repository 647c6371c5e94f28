/*
 * schema.c: checks tool arguments against the tools' own input schemas,
 * so the schema a client is shown is the one enforced. Only the keywords
 * those schemas use are known; a message names the argument and says
 * what was expected, for a model to correct its call.
 */
#include "mcp_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static bool fail(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return false;
}

/* A short rendering of v for messages. */
static void shown(const cJSON *v, char *out, size_t cap)
{
	char *t = cJSON_PrintUnformatted(v);
	size_t n = t ? strlen(t) : 0;

	if (n > 60)
		snprintf(out, cap, "%.57s...", t);
	else
		snprintf(out, cap, "%s", t ? t : "?");
	cJSON_free(t);
}

static const char *type_of(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsNumber(v))
		return v->valuedouble == floor(v->valuedouble) ? "integer"
							       : "number";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsObject(v))
		return "object";
	if (cJSON_IsArray(v))
		return "array";
	return "null";
}

static bool type_ok(const char *want, const cJSON *v)
{
	const char *got = type_of(v);

	return strcmp(want, got) == 0 ||
	       (strcmp(want, "number") == 0 && strcmp(got, "integer") == 0);
}

static const char *article(const char *type)
{
	return strchr("aeiou", type[0]) ? "an" : "a";
}

static size_t chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += utf8_is_lead((unsigned char)*s);
	return n;
}

static double num(const cJSON *schema, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(schema, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static bool check_string(const cJSON *schema, const cJSON *v, const char *where,
			 char *why, size_t cap)
{
	const cJSON *e, *en = cJSON_GetObjectItemCaseSensitive(schema, "enum");
	size_t n = chars(v->valuestring);
	double lo = num(schema, "minLength", 0),
	       hi = num(schema, "maxLength", INFINITY);

	if ((double)n < lo)
		return fail(why, cap, "%s must not be empty", where);
	if ((double)n > hi)
		return fail(why, cap, "%s is %zu characters long; at most %.0f",
			    where, n, hi);
	if (!en)
		return true;
	cJSON_ArrayForEach(e, en) if (cJSON_IsString(e) &&
				      strcmp(e->valuestring, v->valuestring) ==
					  0) return true;
	return fail(why, cap,
		    "%s is \"%.60s\"; it must be one of the values "
		    "its schema lists",
		    where, v->valuestring);
}

static bool check_number(const cJSON *schema, const cJSON *v, const char *where,
			 char *why, size_t cap)
{
	double lo = num(schema, "minimum", -INFINITY),
	       hi = num(schema, "maximum", INFINITY);

	if (v->valuedouble < lo)
		return fail(why, cap, "%s must be at least %.0f, got %g", where,
			    lo, v->valuedouble);
	if (v->valuedouble > hi)
		return fail(why, cap, "%s must be at most %.0f, got %g", where,
			    hi, v->valuedouble);
	return true;
}

/* The names of an object schema's properties, for a message. */
static void accepted(const cJSON *props, Buf *b)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, props)
	    buf_printf(b, "%s%s", b->len ? ", " : "", p->string);
}

static bool check_object(const cJSON *schema, const cJSON *v, const char *where,
			 char *why, size_t cap)
{
	const cJSON *props =
	    cJSON_GetObjectItemCaseSensitive(schema, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	const cJSON *extra =
	    cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
	const cJSON *e;
	char sub[128];

	cJSON_ArrayForEach(e, req) if (
	    cJSON_IsString(e) &&
	    !cJSON_GetObjectItemCaseSensitive(
		v, e->valuestring)) return fail(why, cap,
						"missing argument \"%s\"%s%s",
						e->valuestring,
						*where ? " in " : "", where);
	cJSON_ArrayForEach(e, v)
	{
		const cJSON *ps =
		    cJSON_GetObjectItemCaseSensitive(props, e->string);

		if (!ps && cJSON_IsFalse(extra)) {
			Buf names = {0};

			accepted(props, &names);
			fail(why, cap,
			     "unknown argument \"%.60s\" (accepted: %s)",
			     e->string, names.data ? names.data : "none");
			buf_free(&names);
			return false;
		}
		snprintf(sub, sizeof(sub), "%s%s%.60s", where,
			 *where ? "." : "", e->string);
		if (ps && !mcp__schema_check(ps, e, sub, why, cap))
			return false;
	}
	return true;
}

bool mcp__schema_check(const cJSON *schema, const cJSON *v, const char *where,
		       char *why, size_t cap)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(schema, "type");
	const cJSON *items, *e;
	char got[80], sub[128];
	int i = 0;

	if (cJSON_IsString(t) && !type_ok(t->valuestring, v)) {
		shown(v, got, sizeof(got));
		return fail(why, cap, "%s must be %s %s, got %s",
			    *where ? where : "arguments",
			    article(t->valuestring), t->valuestring, got);
	}
	if (cJSON_IsString(v))
		return check_string(schema, v, where, why, cap);
	if (cJSON_IsNumber(v))
		return check_number(schema, v, where, why, cap);
	if (cJSON_IsObject(v))
		return check_object(schema, v, where, why, cap);
	items = cJSON_GetObjectItemCaseSensitive(schema, "items");
	if (!cJSON_IsArray(v) || !items)
		return true;
	cJSON_ArrayForEach(e, v)
	{
		snprintf(sub, sizeof(sub), "%s[%d]", where, i++);
		if (!mcp__schema_check(items, e, sub, why, cap))
			return false;
	}
	return true;
}
