/*
 * why.c: why an item ranked, in words, from one table of signals. Every
 * front door (the editors through the server, the CLI, agents) shows
 * these words rather than deriving its own.
 */
#include "rank_int.h"

static bool defines(const RankSignals *g) { return g->definition > 0; }
static bool file_use(const RankSignals *g)
{
	return g->file_use > 0 && !g->same_file;
}
static bool sibling(const RankSignals *g) { return g->sibling > 0; }
static bool similar(const RankSignals *g) { return g->similar > 0; }
static bool namesakes(const RankSignals *g) { return g->namesakes > 0; }
static bool member(const RankSignals *g) { return g->member; }
static bool receiver(const RankSignals *g) { return g->receiver; }
static bool unused(const RankSignals *g) { return g->unused_import; }
static bool imported_name(const RankSignals *g)
{
	return g->imported_name && !g->unused_import;
}
static bool import(const RankSignals *g) { return g->import; }
static bool declared(const RankSignals *g) { return g->declared; }
static bool here_def(const RankSignals *g)
{
	return g->same_file && g->definition_item;
}
static bool here_chunk(const RankSignals *g)
{
	return g->same_file && !g->definition_item;
}
static bool unused_private(const RankSignals *g)
{
	return g->same_file && g->unused_private;
}
static bool lexical(const RankSignals *g) { return g->bm25 > 0; }
static bool joined(const RankSignals *g) { return g->joined && *g->joined; }

static void say_defines(const RankSignals *g, Buf *b)
{
	if (g->defines && *g->defines)
		buf_printf(b, "defines %s, used near the cursor", g->defines);
	else
		buf_puts(b, "defines a name used near the cursor");
}

static void say_here(const RankSignals *g, Buf *b)
{
	buf_printf(b, "in this file, %u line%s away", g->lines_away,
		   g->lines_away == 1 ? "" : "s");
	if (g->uses_in_file)
		buf_printf(b, ", used %u time%s", g->uses_in_file,
			   g->uses_in_file == 1 ? "" : "s");
	if (g->callers)
		buf_printf(b, ", called by %u of its %u functions", g->callers,
			   g->functions);
}

static void say_joined(const RankSignals *g, Buf *b)
{
	buf_printf(b, "shown with %s", g->joined);
}

static const struct {
	bool (*holds)(const RankSignals *g);
	const char *words;			   /* or: */
	void (*say)(const RankSignals *g, Buf *b); /* words that vary */
} reasons[] = {
    {defines, NULL, say_defines},
    {file_use, "its name is used elsewhere in this file", NULL},
    {sibling, "used by this file's other definitions of the same name", NULL},
    {similar,
     "used by this file's definitions with headers like the one being "
     "written",
     NULL},
    {namesakes, "used by other files' definitions of the same name", NULL},
    {member, "a member of the class being written or its bases", NULL},
    {receiver, "a method of the type of what it is called on", NULL},
    {unused, "imported by this file and not used yet", NULL},
    {imported_name, "a name this file imports", NULL},
    {import, "in a file this one imports", NULL},
    {declared, "declared in a file this one imports", NULL},
    {here_def, NULL, say_here},
    {here_chunk, "in this file", NULL},
    {unused_private, "private and not used yet", NULL},
    {lexical, "matching words", NULL},
    {joined, NULL, say_joined},
};

void rank_why(const RankItem *item, Buf *out)
{
	size_t start = out->len;

	for (size_t i = 0; i < sizeof(reasons) / sizeof(*reasons); i++) {
		if (!reasons[i].holds(&item->signals))
			continue;
		if (out->len > start)
			buf_puts(out, "; ");
		if (reasons[i].words)
			buf_puts(out, reasons[i].words);
		else
			reasons[i].say(&item->signals, out);
	}
	if (out->len == start)
		buf_puts(out, "related text");
}
