/*
 * lang_int.h: what each grammar calls a definition, an import and a
 * comment. The chunking and span algorithms read these tables and have no
 * language-specific branches.
 */
#ifndef CASTLS_LANG_INT_H
#define CASTLS_LANG_INT_H

#include "chunker.h"

typedef enum {
	DOC_NONE,
	DOC_BODY_STRING, /* Python: a string as the body's first statement */
	DOC_LEADING_COMMENT, /* comments on the lines right above */
} DocMode;

typedef struct {
	const char *type; /* node type that defines something */
	SpanKind kind;	  /* SPAN_FUNCTION becomes SPAN_METHOD in a class */
	const char *name_field;	 /* field holding the name */
	const char *body_field;	 /* field holding the body; NULL if none */
	const char *value_types; /* if set, the `value` field must be one of
				  * these space-separated types, and the body
				  * is looked up on it (unless own_body) */
	/* For names deeper than one field (C declarators, C++ qualified
	 * names, Go receivers); all optional. Rows of one node type must
	 * be adjacent: the first that holds is taken. */
	const char *value_field; /* the field value_types tests (NULL:
				  * `value`) */
	const char *body_types;	 /* without a body field: the first child
				  * of one of these types (anonymous `{`
				  * too) starts the body */
	const char *name_types;	 /* if set, from the name field's node the
				  * walk goes down, by the name_path fields
				  * or else the first named child, to a
				  * node of one of these types: the name */
	const char *name_path;	 /* space-separated fields */
	const char *name_in;	 /* the row holds only when the node above
				  * the name is one of these types (the
				  * definition itself when its name field
				  * holds the name) */
	const char *scope_field; /* a node passed on the way to the name
				  * with this field is qualified by it: the
				  * `A::B` of `A::B::f` */
	const char *owner_field; /* the definition's field naming the type
				  * it belongs to (Go's receiver), found
				  * like the name */
	const char *recovered;	 /* a node the parser may leave in an ERROR
				  * just before the name field when a word
				  * it cannot place follows it (C++'s `f()
				  * NOEXCEPT_MACRO {`): the walk to the name
				  * starts there then */
	const char *guard_types; /* the row does not hold for a definition
				  * without a `value` right under a node of
				  * one of these types whose name field names
				  * it too: an include guard (`#ifndef X_H`
				  * `#define X_H`) defines nothing to read */
	bool own_body;		 /* the body is the definition's own, and
				  * value_types' node has none: it names a
				  * type (`class EXPORT`) without defining
				  * it */
	bool needs_body;	 /* without a body it is a mention only
				  * (`struct a *p`, `mod a;`) */
	bool named;		 /* without a name it is no definition
				  * (rather than "<anonymous>") */
	bool flat;		 /* the definitions inside are not named
				  * through it (a struct in C's typedef) */
} DefRule;

/*
 * An import statement: where its module is, and which nodes under it bind
 * names. The walk goes through the `enter` types below the statement,
 * never into the module itself. Lists are space-separated node types.
 */
typedef struct {
	const char *type;	  /* the statement; NULL ends a table */
	const char *module_field; /* field holding the module; NULL when each
				   * imported name is itself a module (Python
				   * `import a.b`) */
	const char *names;	  /* nodes that import a name of the module */
	const char *defaults;	  /* nodes that import its default export */
	const char *aliased;	  /* nodes with a `name` and an `alias` field */
	const char *namespaces;	  /* nodes that bind the whole module to the
				   * identifier under them */
	const char *enter;	  /* nodes walked through to find those */
	bool reexport;		  /* the statement passes names on
				   * (`export {a} from "m"`) */
	/* Imports written as paths (Rust's `a::b::C`, Java's `a.b.C`):
	 * the name is the path's last component, its module the rest. */
	const char *paths;	  /* path nodes: the module in path_field */
	const char *path_field;	  /* `path`, `scope` */
	const char *groups;	  /* nodes whose path_field is a prefix of the
				   * paths in their `list` (`a::{b, c}`) */
	const char *wholes;	  /* nodes whose first named child is a module
				   * imported whole (`use a::*`) */
	const char *wildcard;	  /* a sibling that makes a path a module
				   * imported whole (`import a.b.*`) */
	const char *alias_of;	  /* the aliased node's field holding what it
				   * renames (NULL: `name`) */
	const char *unless_field; /* the statement is no import when it has
				   * this field (Rust's inline `mod a {}`) */
	bool binds_tail;	  /* a statement that binds no name binds
				   * its module's last component (Go's
				   * `import "a/b"` is `b`, Rust's `mod b;`) */
	bool relative;		  /* its module is relative to the file's
				   * own (Rust's `mod b;`) */
} ImportRule;

/*
 * Names bound by plain assignment at the top level of a file or a class
 * body: constants, aliases, `Name = namedtuple(...)`. Each is a span of
 * kind variable (field in a class body). Definitions the span table
 * already records (functions assigned to a const) are left out by the
 * type of their value.
 */
typedef struct {
	const char *types;	/* nodes that bind a name; NULL: none */
	const char *holders;	/* statements walked through to reach them */
	const char *name_field; /* the bound name ... */
	const char *name_types; /* ... which must be one of these */
	const char *value_field;
	const char *skip_values; /* values that make it a definition already */
} BindingRule;

/*
 * A node that gives a name a type: a declaration with a type annotation,
 * or an assignment from a call (`x = Foo(...)`, `new Foo()`), whose
 * callee is taken as the type.
 */
typedef struct {
	const char *type;	 /* NULL ends a table */
	const char *name_field;	 /* the name; NULL: the first named child.
				  * Here and below, fields separated by
				  * spaces are followed in turn, and `*`
				  * steps to the first named child (the
				  * first of Go's `x, err :=`) */
	const char *type_field;	 /* the declared type; NULL: none */
	const char *value_field; /* the value; NULL: none */
} TypingRule;

/* Where what keeps a definition to its file applies. */
typedef enum {
	PRIVATE_ANY,	   /* at any depth (Java's `private` members) */
	PRIVATE_TOP,	   /* outside every other definition */
	PRIVATE_NAMESPACE, /* ... but namespaces, which are no scope of
			    * their own (C++'s `static` in `namespace a`) */
} PrivateScope;

/* Names that keep a definition to its file (or directory). */
typedef enum {
	PRIVATE_NAMES_NONE,
	PRIVATE_UNDERSCORE, /* starting with "_", no dunder (Python) */
	PRIVATE_LOWER,	    /* starting with a small letter (Go) */
} PrivateNames;

typedef struct {
	Lang lang;
	const char *name;
	const char *extensions; /* space-separated, with dots */
	const TSLanguage *(*grammar)(void);
	const DefRule *defs;	    /* ended by a row with type NULL */
	const char *wrappers;	    /* types that carry decorators or `export`
				     * around a single definition */
	const char *wrapper_parts;  /* what a wrapper may hold besides that
				     * definition (C++'s template parameters) */
	const char *attributes;	    /* nodes before a definition, its siblings,
				     * that belong to it (Rust's `#[derive]`) */
	const char *imports;	    /* import statement types */
	const char *import_holders; /* statements and lists the rules' nodes
				     * are found in (Go's `import (...)`,
				     * C's `#ifndef` guard) */
	const char *comments;	    /* comment types */
	const char *strings;	    /* string literal types */
	const char *receivers;	    /* "type field": a top-level method's
				     * node type and the field that holds
				     * its receiver (Go's `(e *encoder)`);
				     * NULL: none */
	const char *opaque;	    /* types that never hold a definition: the
				     * span walk does not enter them */
	DocMode doc;
	const char *qsep;		/* qualified-name separator */
	const ImportRule *import_rules; /* ended by a row with type NULL */
	BindingRule bindings;
	ModuleStyle modules;	  /* how an import names a module */
	const char *module_files; /* what a module's path ends with, for
				   * each way a file can be that module */
	const char *module_exts;  /* extensions an import may write for a
				   * source of another (ESM's "./a.js" for
				   * a.ts) */
	const char *dir_modules;  /* ModuleRules says what these are */
	const char *manifest;
	const char *manifest_key;
	const char *redirect;
	const char *redirect_arrow;
	const char *vendor;
	const char *workspace;
	const char *members_key;
	const char *name_map;
	const char *include_db;
	const char *include_flags;
	const char *source_dir;
	bool shared_scope;
	const char *path_maps;
	const char *packages;
	const char *stopwords;	   /* keywords and builtins: never worth
				    * looking up as a definition */
	const TypingRule *typings; /* ended by a row with type NULL */
	const char *calls;	   /* call nodes ... */
	const char *callees;	   /* ... and the fields of their callee; a
				    * callee that is itself one of the calls
				    * is followed (Go's `&T{}`) */
	const char *call_wrappers; /* nodes that are a call when their callee
				    * field holds one (Go's `&T{}`) */
	const char *inferred;	   /* type nodes that leave the type to the
				    * value (C++'s `auto`) */
	const char *ctor_prefix;   /* what starts the name of a function
				    * that makes the type named by the
				    * rest (Go's `NewT`) */
	bool lower_types;	   /* a type's name may start with a small
				    * letter (Go's unexported types) */
	const char *member_ops;	   /* what stands between an object and
				    * its member (NULL: ".") */
	const char *self_word;	   /* how a method names its object */
	const char *line_comment;  /* what starts a comment to the line end */
	const char *family;	   /* languages whose code uses each other's
				    * definitions share one family name; NULL
				    * for prose */
	/* What keeps a definition to its file, so that a file that does not
	 * use it yet is about to: a word before its name (C's "static",
	 * Java's "private"), the want of one (TypeScript's "export"), or its
	 * name (Python's "_name", Go's unexported names); at the depth
	 * private_scope says, and to the file's directory rather than the
	 * file when private_dir (Go's package). None for Rust, whose private
	 * items serve child modules in other files too (`pub` read for leaf
	 * modules only changed no check-half figure). */
	const char *private_words;
	const char *public_words;
	PrivateNames private_names;
	PrivateScope private_scope;
	bool private_dir;
	const char *module_words; /* a file with none of these words is a
				   * script, whose top-level names are
				   * global: nothing is kept to it */
	const char *entries;	  /* names the runtime calls, no code (Go's
				   * "main", "init", Java's serialization
				   * hooks): never kept unused */
	/* An extension of another language's this one takes over (C++ a
	 * `.h`) when the text shows one of its markers or a file with the
	 * same stem has one of its sibling extensions. */
	const char *also;     /* extensions claimed, with dots */
	const char *markers;  /* text only this language has, space-
			       * separated: "^x" at a line start (after
			       * blanks), "x" anywhere; `\ ` is a space
			       * within a marker; 16 of 32 bytes at most
			       * (lang__markers_fit) */
	const char *siblings; /* extensions of a sibling that decide */
	/* Files a tool wrote: patterns with `*` for any run of characters,
	 * of file names (space-separated) and of whole lines (separated by
	 * `|`: they hold spaces). */
	const char *generated_names;
	const char *generated_lines;
} LangSpec;

const LangSpec *lang_spec(Lang lang);
/* Whether a markers list fits what lang_detect reads of it (16 markers
 * of 32 bytes): a longer one would be cut short, silently. */
bool lang__markers_fit(const char *list);

#endif
