/*
 * position.h: LSP positions <-> byte offsets in a document.
 *
 * An LSP position is (line, character), both 0-based. Lines end at "\n",
 * "\r\n" or a lone "\r" (the spec counts all three). character counts
 * UTF-16 code units unless the client negotiated another encoding: bytes
 * for "utf-8", code points for "utf-32".
 *
 * Text is treated as UTF-8. A byte that does not begin a well-formed
 * sequence (a stray continuation byte, a truncated or overlong sequence,
 * an encoded surrogate, anything above U+10FFFF) is one character on its
 * own: one UTF-16 unit, one UTF-32 unit, one byte. That keeps every byte
 * offset reachable and the arithmetic total for any input.
 *
 * Offsets are uint32_t: documents must be under 4 GiB, far above the
 * server's file-size limit.
 */
#ifndef CASTLS_LSP_POSITION_H
#define CASTLS_LSP_POSITION_H

#include <stddef.h>
#include <stdint.h>

typedef enum { POS_UTF8, POS_UTF16, POS_UTF32 } PosEncoding;

/* Where each line starts. starts[0] is always 0; a text ending in a line
 * break has a last, empty line starting at its end. */
typedef struct {
	uint32_t *starts; /* byte offset of each line start, ascending */
	uint32_t n, cap;  /* lines; allocated entries */
	uint32_t len;	  /* bytes of the text indexed */
} LineIndex;

/* Indexes text[0..len) (borrowed). li must be zero-initialised or hold an
 * earlier index, whose memory is reused. Returns 0, or CASTLS_ELIMIT when
 * len does not fit in uint32_t (li is then left as it was). */
int line_index_build(LineIndex *li, const char *text, size_t len);
/* Frees the index and zeroes li; a zeroed li is fine. */
void line_index_free(LineIndex *li);

/*
 * Fixes up li after a splice: bytes [start_byte, old_end_byte) of the old
 * text were replaced, giving new_text[0..new_len) (borrowed) in which the
 * replacement occupies [start_byte, new_end_byte). Only the edited region
 * (plus one byte each side, for "\r\n" pairs the edit joins or splits) is
 * scanned; later line starts are shifted. The result equals
 * line_index_build over new_text. Returns 0, or CASTLS_EINVAL when the
 * offsets are inconsistent with each other or with li->len, or
 * CASTLS_ELIMIT when new_len does not fit in uint32_t; li is unchanged on
 * error.
 */
int line_index_update(LineIndex *li, const char *new_text, size_t new_len,
		      uint32_t start_byte, uint32_t old_end_byte,
		      uint32_t new_end_byte);

/*
 * tree-sitter's row of byte off of text: the "\n" before it (rows end at
 * "\n" only). Counted from byte mark, which has mark_row of them before
 * it, or from the start, whichever is nearer: an editor's edits fall
 * near each other, and the start of a long file is far.
 */
uint32_t position_ts_row(const char *text, uint32_t off, uint32_t mark,
			 uint32_t mark_row);

/*
 * LSP (line, character) -> byte offset in text[0..len) (borrowed; li must
 * index exactly this text). A line past the last one gives len. A
 * character past the end of its line gives the line end (before its line
 * break). A character inside a character (the middle of a UTF-16
 * surrogate pair, or of a multibyte UTF-8 sequence with POS_UTF8) rounds
 * down to that character's first byte.
 */
uint32_t position_to_byte(const LineIndex *li, const char *text, size_t len,
			  PosEncoding enc, uint32_t line, uint32_t character);

/* Byte offset -> LSP position, the inverse of position_to_byte. An offset
 * past len is taken as len; one inside a character rounds down to its
 * start, one inside a "\r\n" pair to the end of the line. */
void position_from_byte(const LineIndex *li, const char *text, size_t len,
			PosEncoding enc, uint32_t byte, uint32_t *line,
			uint32_t *character);

/*
 * Marks inside long lines, for many conversions over one text that no
 * longer changes (a worker's snapshot): without them each conversion
 * walks from its line's start, which on a file of one 16 MB line makes
 * a chunk list quadratic. Every POS_MARK_STRIDE bytes of a longer line
 * (at a character start) a mark holds the code units, in one encoding,
 * from the line's start; a conversion then walks from the nearest mark
 * before it, at most POS_MARK_STRIDE bytes.
 */
#define POS_MARK_STRIDE 4096u

typedef struct {
	uint32_t *at;	 /* byte offset of each mark, ascending */
	uint32_t *units; /* code units from its line's start to at[i] */
	uint32_t n, cap;
	PosEncoding enc;
} PosMarks;

/* Builds the marks of text[0..len) (borrowed), which li indexes, for
 * enc; O(len), and nothing at all when no line is long. m must be
 * zeroed; pos_marks_free frees it. */
void pos_marks_build(PosMarks *m, const LineIndex *li, const char *text,
		     size_t len, PosEncoding enc);
void pos_marks_free(PosMarks *m);

/* position_from_byte, walking from the marks m (built for this text and
 * enc; may be NULL). */
void position_from_byte_marked(const LineIndex *li, const PosMarks *m,
			       const char *text, size_t len, PosEncoding enc,
			       uint32_t byte, uint32_t *line,
			       uint32_t *character);

#endif
