;;; emacs_test.el --- castls.el against the real castls  -*- lexical-binding: t; -*-

;; Run by tests/editors/run.sh:
;;   emacs --batch -l castls.el -l emacs_test.el
;; with CASTLS_SERVER and CASTLS_TEST_REPO set.  Turns on
;; castls-global-mode, opens pkg/report.py, where Eglot runs pylsp and
;; castls-mode runs castls beside it, runs the commands and checks the
;; buffers; then edits, a .ts file in Fundamental mode, a server error,
;; a missing program, restarts, and castls alone under Eglot.  Shuts the
;; servers down and exits with the number of failures.

;;; Code:

(require 'castls)
(require 'eglot)

(defvar castls-test-failures 0)

(defun castls-test-log (fmt &rest args)
  "Print FMT with ARGS on stdout."
  (princ (concat (apply #'format fmt args) "\n")))

(defun castls-test-check (ok what &optional detail)
  "Count a failure unless OK; WHAT names the check, DETAIL explains it."
  (if ok
      (castls-test-log "ok   %s" what)
    (setq castls-test-failures (1+ castls-test-failures))
    (castls-test-log "FAIL %s%s" what
                     (if detail (format "\n     %S" detail) "")))
  ok)

(defun castls-test-wait (seconds what pred)
  "Process events until PRED holds, for at most SECONDS; WHAT names it."
  (let ((deadline (+ (float-time) seconds)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun castls-test-whys (buffer what)
  "Check that BUFFER shows each item with the server's :why.
The items are those its buttons hold, as the server sent them; the why
is the line under the item's.  No name list may show \",,\".  WHAT
names the check."
  (let ((text (with-current-buffer buffer (buffer-string)))
        (n 0) items missing)
    (with-current-buffer buffer
      (let ((b (next-button (point-min))))
        (while b
          (push (button-get b 'castls-item) items)
          (setq b (next-button (button-end b))))))
    (dolist (item (nreverse items))
      (setq n (1+ n))
      (let ((why (plist-get item :why)))
        (unless (and (stringp why) (not (string-empty-p why))
                     (string-match-p
                      (format "^%d\\. .*\n   %s$" n (regexp-quote why))
                      text))
          (push (list n why) missing))))
    (castls-test-check (and (> n 0) (null missing))
                       (format "%s: each item shows the server's why" what)
                       (list missing text))
    (castls-test-check (not (string-search ",," text))
                       (format "%s: no \",,\" in the buffer" what) text)))

;; Batch Emacs renders no mode line (`format-mode-line' gives ""):
;; evaluate castls-mode's entry in `minor-mode-alist' as redisplay would.
(defun castls-test-mode-line (&optional buffer)
  "What castls-mode puts in BUFFER's mode line."
  (with-current-buffer (or buffer (current-buffer))
    (let ((lighter (cadr (assq 'castls-mode minor-mode-alist))))
      (and castls-mode
           (if (eq (car-safe lighter) :eval) (eval (cadr lighter) t) lighter)))))

(defun castls-test-messages ()
  "The text of *Messages*."
  (with-current-buffer (messages-buffer) (buffer-string)))

(defun castls-test-error (fn)
  "Call FN; return the message of the error it signals, or nil."
  (condition-case err (progn (funcall fn) nil)
    (error (error-message-string err))))

(defun castls-test-chunks-end ()
  "Where castls' chunks of this buffer end, and where the buffer ends."
  (let ((chunks (plist-get (castls--request
                            :castls/chunks
                            (list :textDocument (castls--document)))
                           :chunks)))
    (list (and (> (length chunks) 0)
               (plist-get (plist-get (aref chunks (1- (length chunks)))
                                     :range)
                          :end))
          (castls--position (point-max)))))

(defvar castls-test-repo nil "The test repository, its true name.")
(defvar castls-test-mode-lines nil
  "castls' mode line in report.py at each $/progress report, newest first.")

(defun castls-test-file (name)
  "NAME in the test repository."
  (expand-file-name name castls-test-repo))

(defun castls-test-beside-eglot ()
  "report.py: castls-mode from castls-global-mode, pylsp under Eglot.
Returns the buffer."
  (castls-test-check
   (not (rassq #'castls-eglot-contact eglot-server-programs))
   "castls is not in eglot-server-programs unless registered")
  (castls-global-mode 1)
  (find-file (castls-test-file "pkg/report.py"))
  (let ((source (current-buffer)) conn)
    (castls-test-check (eq major-mode 'python-mode) "python-mode")
    (castls-test-check castls-mode "castls-global-mode turned castls-mode on")
    (setq conn castls--connection)
    (castls-test-check (and conn (jsonrpc-running-p conn)) "castls is running")
    (castls-test-check (equal (castls--root)
                              (file-name-as-directory castls-test-repo))
                       "the project root is the git root" (castls--root))
    (castls-test-check (equal (castls-test-mode-line) " castls")
                       "the mode line shows castls" (castls-test-mode-line))
    ;; The user's own server: pylsp under Eglot, in the same buffer.
    (eglot-ensure)
    (run-hooks 'post-command-hook)
    (castls-test-wait 30 "Eglot to connect pylsp" #'eglot-current-server)
    (let ((pylsp (eglot-current-server)))
      (castls-test-check
       (equal (file-name-nondirectory
               (car (process-command (jsonrpc--process pylsp))))
              "pylsp")
       "Eglot runs pylsp for report.py" (process-command
                                          (jsonrpc--process pylsp)))
      (castls-test-check (and castls-mode (eq castls--connection conn)
                              (jsonrpc-running-p conn))
                         "castls-mode still serves report.py beside Eglot"))

    ;; Indexing done: castls-status lists the five files; the file under
    ;; generated/, excluded by a list-valued :exclude, is not indexed.
    (let (status)
      (castls-test-wait 30 "the index"
                        (lambda ()
                          (setq status (castls-status))
                          (and (eq (plist-get status :files) 5)
                               (not (castls--true
                                     (plist-get status :indexing))))))
      (castls-test-check (string-match-p
                          "^  .*/repo: 5 files (markdown 1, python 3, typescript 1), index [0-9.]+ [KM]B"
                          (cadr (castls-status-lines status)))
                         "castls-status: root, languages, index size; :exclude as a list"
                         (castls-status-lines status)))

    ;; Eglot's completion (pylsp) answers; castls sees the same edit.
    (goto-char (point-max))
    (insert "\n\ndef probe():\n    return circle_")
    (let* ((capf (eglot-completion-at-point))
           (names (and capf (all-completions "circle_" (nth 2 capf)))))
      (castls-test-check (member "circle_area" names)
                         "Eglot (pylsp) completes circle_ to circle_area" names))
    (let ((ends (castls-test-chunks-end)))
      (castls-test-check (apply #'equal ends)
                         "castls' chunks end where the edited buffer ends"
                         ends))
    (castls-test-check (plist-get (castls-context-items) :budget)
                       "castls-context answers beside Eglot")
    (delete-region (- (point) (length "\n\ndef probe():\n    return circle_"))
                   (point))
    source))

(defun castls-test-context (source)
  "castls-context, -search and -context-string from SOURCE (report.py)."
  (set-buffer source)
  (let ((repo castls-test-repo))
    ;; castls-context at "total += circle_area(r)".
    (goto-char (point-min))
    (search-forward "circle_area(r)")
    (backward-char 6)
    (castls-test-check (= (line-number-at-pos) 8) "point on the call site")
    (let* ((buf (castls-context))
           (text (with-current-buffer buf (buffer-string))))
      (castls-test-log "%s" text)
      (castls-test-check
       (string-match-p "\\`castls context for pkg/report\\.py:8  ([0-9]+ chunks, [0-9]+/1500 tokens)"
                       text)
       "heading names the file, line and budget" text)
      (castls-test-check (not (string-search "indexing:" text))
                         "a final answer says nothing of indexing" text)
      (castls-test-check
       (string-match-p "^1\\. pkg/geometry\\.py:5-7  score [0-9.]+  circle_area$"
                       text)
       "first item: the definition of circle_area" text)
      (castls-test-check
       (string-search "\n   defines circle_area, used near the cursor; a name this file imports; in a file this one imports" text)
       "why it was ranked, in the server's words" text)
      (castls-test-whys buf "castls-context")
      (castls-test-check (string-match-p "| def circle_area(radius):" text)
                         "a code preview" text)
      (with-current-buffer buf
        (castls-test-check buffer-read-only "the buffer is read-only")
        (goto-char (point-min))
        (let ((button (next-button (point))))
          (castls-test-check (equal (button-label button)
                                    (progn (string-match "pkg/geometry\\.py:5-7" text)
                                           (match-string 0 text)))
                             "the first button names the chunk")
          (button-activate button)))
      ;; What the selected window shows, as the user would see it.
      (with-current-buffer (window-buffer (selected-window))
        (castls-test-check (equal (buffer-file-name)
                                  (expand-file-name "pkg/geometry.py" repo))
                           "the button visits geometry.py" (buffer-file-name))
        (castls-test-check (= (line-number-at-pos (window-point)) 5)
                           "at the definition's first line"
                           (line-number-at-pos (window-point)))))

    ;; castls-context in Square.diagonal, a subclass of Rectangle: its
    ;; methods are members, and small siblings are shown as one item.
    (with-current-buffer (find-file-noselect
                          (expand-file-name "pkg/geometry.py" repo))
      (castls-test-check (eq castls--connection
                             (buffer-local-value 'castls--connection source))
                         "geometry.py is served by the same castls")
      (goto-char (point-min))
      (forward-line 30)
      (search-forward "self.")
      (let* ((buf (castls-context))
             (text (with-current-buffer buf (buffer-string))))
        (castls-test-log "%s" text)
        (castls-test-check
         (string-match-p "  Rectangle\\.__init__\n   defines __init__, area, perimeter, used near the cursor; a member of the class being written or its bases; .*; shown with Rectangle\\.area, Rectangle\\.perimeter$"
                         text)
         "a member, shown with its siblings, in the server's words" text)
        (castls-test-whys buf "castls-context in a subclass")))

    ;; A server older than :why: a few words from the signals, the names
    ;; comma-separated as castls sends them (older ones: spaces).
    (dolist (defines '("area, perimeter" "area perimeter"))
      (let ((why (castls-why (list :signals (list :bm25 0 :definition 0.5
                                                  :defines defines
                                                  :import t
                                                  :sameFile :json-false)))))
        (castls-test-check
         (equal why "defines area, perimeter; in a file this one imports")
         (format "castls-why without the server's words: %s" defines) why)))

    ;; castls-search.
    (set-buffer source)
    (let* ((buf (castls-search "Rectangle perimeter"))
           (text (with-current-buffer buf (buffer-string))))
      (castls-test-whys buf "castls-search")
      (castls-test-check
       (string-match-p "\\`castls search \"Rectangle perimeter\"  ([0-9]+ chunks)"
                       text)
       "search heading" text)
      (castls-test-check
       (string-match-p "^1\\. pkg/geometry\\.py:[0-9]+-[0-9]+  score" text)
       "search finds geometry.py first" text))

    ;; The string for gptel, ellama and friends.
    (set-buffer source)
    (goto-char (point-min))
    (forward-line 7)
    (let ((prompt (castls-context-string nil 1000))
          (small (castls-context-items nil 40)))
      (castls-test-check
       (string-match-p "\\`### pkg/geometry\\.py (lines 5-7)\n```python\n"
                       prompt)
       "castls-context-string: a file header and a fence" prompt)
      (castls-test-check (string-match-p "^def circle_area(radius):$" prompt)
                         "castls-context-string: the definition" prompt)
      (castls-test-check (and (= (plist-get (plist-get small :budget) :limit) 40)
                              (<= (plist-get (plist-get small :budget) :used) 40))
                         "a small budget is honoured"
                         (plist-get small :budget)))))

(defun castls-test-partial (source)
  "A reply with the indexing flag is shown as partial."
  (set-buffer source)
  (goto-char (point-min))
  (search-forward "circle_area(r)")
  (let ((flag (lambda (reply) (plist-put (copy-sequence reply) :indexing t))))
    (advice-add 'castls-context-items :filter-return flag)
    (unwind-protect
        (let ((text (with-current-buffer (castls-context) (buffer-string))))
          (castls-test-check
           (string-match-p "\\`castls context for pkg/report\\.py:8  ([0-9]+ chunks, [0-9]+/1500 tokens)  (indexing: results may be partial)\n"
                           text)
           "a reply given while indexing says it may be partial" text))
      (advice-remove 'castls-context-items flag))))

(defun castls-test-progress (source)
  "Reindexing shows its progress in report.py's mode line."
  (set-buffer source)
  (setq castls-test-mode-lines nil)
  (castls-test-check (equal (castls-reindex) "castls: reindexing")
                     "castls-reindex says so")
  (castls-test-wait 30 "reindexing to finish"
                    (lambda ()
                      (and castls-test-mode-lines
                           (not (castls--true
                                 (plist-get (castls-status) :indexing)))
                           (null (castls--progress castls--connection)))))
  (castls-test-check
   (seq-find (lambda (m) (string-match-p "\\` castls\\[indexing [0-9]+%\\]\\'" m))
             castls-test-mode-lines)
   "the mode line showed indexing progress" castls-test-mode-lines)
  (castls-test-check (equal (castls-test-mode-line) " castls")
                     "the mode line is back to castls when indexing ends"
                     (castls-test-mode-line)))

(defun castls-test-sync (conn)
  "Edits reach CONN's server incrementally, with UTF-16 columns."
  (let ((file (castls-test-file "pkg/sync.py")))
    (write-region "\"\"\"Sync probe.\"\"\"\n\n\ndef sync_probe(a):\n    s = '\U0001F600\U0001F600'\n    return a\n"
                  nil file nil 'silent)
    (with-current-buffer (find-file-noselect file)
      (castls-test-check (eq castls--connection conn)
                         "sync.py is served by the same castls")
      ;; After two characters outside the BMP (two UTF-16 units each).
      (goto-char (point-min))
      (search-forward "'\U0001F600\U0001F600")
      (insert "x")
      (search-forward "return a")
      (insert " + len(s)\n    # done here")
      ;; capitalize-word reports a larger region before than after.
      (search-backward "done")
      (capitalize-word 1)
      (goto-char (point-min))
      (insert "import os\n")
      (search-forward "Sync probe")
      (replace-match "Edited \U0001F600 probe" t t)
      (goto-char (point-min))
      (search-forward "len(s)")
      (delete-region (- (point) 6) (point))
      (insert "len(s) * 2")
      (castls-test-check (and (consp castls--changes)
                              (seq-every-p (lambda (c) (plist-get c :range))
                                           castls--changes))
                         "edits are queued as incremental changes"
                         castls--changes)
      (let ((text (buffer-string)) item)
        (castls-test-wait
         30 "the edited sync_probe in the index"
         (lambda ()
           (setq item (seq-find
                       (lambda (i)
                         (and (equal (castls--uri-to-path (plist-get i :uri))
                                     file)
                              (string-search "Done here"
                                             (plist-get i :text))))
                       (plist-get (castls--request
                                   :castls/search
                                   (list :query "sync_probe Done"))
                                  :items)))))
        (castls-test-check (null castls--changes) "the edits were sent")
        (castls-test-check
         (string-search (plist-get item :text) text)
         "castls' text of sync_probe is the buffer's" (list item text))
        (castls-test-check
         (string-match-p "s = '\U0001F600\U0001F600x'\n    return a \\+ len(s) \\* 2\n    # Done here"
                         (plist-get item :text))
         "each edit landed where it was made" (plist-get item :text))
        (let ((ends (castls-test-chunks-end)))
          (castls-test-check (apply #'equal ends)
                             "castls' chunks of sync.py end where the buffer ends"
                             ends)))
      ;; Visiting another file: the old URI is closed, the new one open.
      (let ((old castls--uri))
        (set-visited-file-name (castls-test-file "pkg/renamed.py") t)
        (castls-test-check (string-suffix-p "/pkg/renamed.py" castls--uri)
                           "renamed: the buffer has the new URI" castls--uri)
        (castls-test-check
         (plist-get (castls--request :castls/chunks
                                     (list :textDocument (castls--document)))
                    :chunks)
         "renamed: castls has the new URI open")
        (castls-test-check
         (castls-test-error
          (lambda () (castls--request :castls/chunks
                                      (list :textDocument (list :uri old)))))
         "renamed: the old URI was closed"))
      (set-buffer-modified-p nil))))

(defun castls-test-roots ()
  "Roots: the git root, else a project marker; never home or /."
  (let* ((home (file-name-as-directory (file-truename "~")))
         (notes (expand-file-name "notes/todo.py" home))
         (app (expand-file-name "../app/src/main.py" castls-test-repo)))
    (make-directory (expand-file-name ".git" home) t)
    (make-directory (file-name-directory app) t)
    (write-region "{}\n" nil (expand-file-name "../app/package.json"
                                               castls-test-repo)
                  nil 'silent)
    (unwind-protect
        (progn
          (castls-test-check
           (equal (castls-find-root (castls-test-file "pkg/report.py"))
                  (file-name-as-directory castls-test-repo))
           "root: the git root")
          (castls-test-check
           (equal (castls-find-root app)
                  (file-name-as-directory
                   (file-truename (expand-file-name "../app"
                                                    castls-test-repo))))
           "root: without git, the directory with package.json"
           (castls-find-root app))
          (castls-test-check (null (castls-find-root notes))
                             "root: never the home directory, even with .git"
                             (castls-find-root notes)))
      (delete-directory (expand-file-name ".git" home) t))))

(defun castls-test-no-project ()
  "Files in no project: one castls with no root, nothing indexed."
  (let* ((lonely (file-truename (make-temp-file "castls-loose" t)))
         (a (expand-file-name "weather.py" lonely))
         (b (expand-file-name "deep/other.py" lonely)))
    (make-directory (file-name-directory b) t)
    (write-region (concat "def celsius_to_kelvin(celsius):\n"
                          "    return celsius + 273.15\n\n\n"
                          (mapconcat (lambda (i)
                                       (format "def filler_%d(x):\n    return x + %d\n\n\n" i i))
                                     (number-sequence 1 12) "")
                          "def report(values):\n"
                          "    return [celsius_to_kelvin(v) for v in values]\n")
                  nil a nil 'silent)
    (write-region "LOOSE = 1\n" nil b nil 'silent)
    (let ((ba (find-file-noselect a))
          (bb (find-file-noselect b))
          conn)
      (with-current-buffer ba
        (setq conn castls--connection)
        (castls-test-check (and castls-mode conn
                                (null (castls-connection-root conn)))
                           "a file in no project: castls with no root")
        (let ((status (castls-status)))
          (castls-test-check (and (zerop (length (plist-get status :roots)))
                                  (zerop (plist-get status :files)))
                             "a file in no project: nothing indexed" status))
        (goto-char (point-max))
        (let ((items (append (plist-get (castls-context-items) :items) nil)))
          (castls-test-check
           (seq-some (lambda (i) (equal (plist-get i :symbol)
                                        "celsius_to_kelvin"))
                     items)
           "a file in no project: its own definitions in the context"
           items)))
      (castls-test-check (eq (buffer-local-value 'castls--connection bb) conn)
                         "two files in no project share one castls")
      (kill-buffer ba)
      (kill-buffer bb)
      (castls--stop conn)
      (castls-test-check (not (jsonrpc-running-p conn))
                         "the castls for files in no project stopped"))))

(defun castls-test-fundamental (conn)
  "A .ts file, in Fundamental mode on Emacs 28, gets castls by its name."
  (with-current-buffer (find-file-noselect (castls-test-file "web/numbers.ts"))
    (castls-test-log "numbers.ts opens in %s" major-mode)
    (castls-test-check castls-mode "castls-mode is on in numbers.ts")
    (castls-test-check (eq castls--connection conn)
                       "numbers.ts is served by the same castls")
    (let ((chunks (castls--request :castls/chunks
                                   (list :textDocument (castls--document)))))
      (castls-test-check (equal (plist-get chunks :language) "typescript")
                         "numbers.ts was opened as TypeScript" chunks))
    (goto-char (point-min))
    (search-forward "padStart(WIDTH")
    (let ((items (append (plist-get (castls-context-items) :items) nil)))
      (castls-test-check
       (and items (string-suffix-p "/web/numbers.ts"
                                   (plist-get (car items) :uri)))
       "castls-context answers in numbers.ts" items))))

(defun castls-test-show-message ()
  "An error the server shows (an index it cannot write) reaches *Warnings*."
  (let* ((other (expand-file-name "../other" castls-test-repo))
         (file (expand-file-name "a.py" other))
         (castls-settings '(:dbPath "/dev/null/castls/index.db"
                                    :budgetTokens "lots")))
    (make-directory (expand-file-name ".git" other) t)
    (write-region "x = 1\n" nil file nil 'silent)
    (with-current-buffer (find-file-noselect file)
      (castls-test-check castls-mode "castls-mode in another project")
      (castls-test-wait 30 "the server's error"
                        (lambda ()
                          (and (get-buffer "*Warnings*")
                               (with-current-buffer "*Warnings*"
                                 (string-search "cannot write the index"
                                                (buffer-string))))))
      (castls-test-check t "window/showMessage is shown in *Warnings*")
      (castls-test-check
       (with-current-buffer "*Warnings*"
         (string-match-p "^Warning (castls): castls: setting budgetTokens: \"?lots\"? is not"
                         (buffer-string)))
       "a setting of the wrong type is shown as a warning"
       (with-current-buffer "*Warnings*" (buffer-string)))
      (let ((conn castls--connection))
        (kill-buffer)
        (castls--stop conn)
        (castls-test-check (not (jsonrpc-running-p conn))
                           "the other project's server stopped")))))

(defun castls-test-missing-program ()
  "A castls-program that does not exist: a message naming the setting."
  (let* ((lonely (make-temp-file "castls-lonely" t))
         (file (expand-file-name "b.py" lonely))
         (castls-program "/nonexistent/castls"))
    (write-region "y = 2\n" nil file nil 'silent)
    (let ((buf (condition-case err (find-file-noselect file)
                 (error (castls-test-check nil "opening a file without castls"
                                           err)
                        nil))))
      (when buf
        (with-current-buffer buf
          (castls-test-check (not castls-mode)
                             "castls-mode stays off without the program")
          (castls-test-check
           (string-match-p "castls: cannot run \"/nonexistent/castls\" (no such file); install castls (make install) or set .castls-program. to its path"
                           (castls-test-messages))
           "the message names castls-program" (castls-test-messages))
          (castls-test-check
           (equal (castls-test-error #'castls-context)
                  "castls is not on in this buffer (M-x castls-mode)")
           "castls-context says castls is not on"
           (castls-test-error #'castls-context))
          (kill-buffer))))
    ;; A program that is no castls: it exits before answering.
    (let ((castls-program "false"))
      (with-current-buffer (find-file-noselect file)
        (castls-mode 1)
        (castls-test-check (not castls-mode)
                           "castls-mode stays off when the server dies at once")
        (castls-test-check
         (string-match-p "^castls: /[^ ]*/false did not start: "
                         (castls-test-messages))
         "the message says the program did not start"
         (castls-test-messages))
        (kill-buffer)))
    (castls-test-check
     (string-match-p "set .castls-program."
                     (or (castls-test-error #'castls-eglot-contact) ""))
     "the Eglot contact names castls-program too"
     (castls-test-error #'castls-eglot-contact))
    (castls-test-check (not (string-search "file-missing"
                                           (castls-test-messages)))
                       "no raw file-missing error")))

(defun castls-test-restart (source)
  "castls-restart, with the server running and after it died."
  (set-buffer source)
  (let ((old castls--connection)
        (served (castls--buffers castls--root-key)))
    (castls-test-check (>= (length served) 4)
                       "report, geometry, sync and numbers are served"
                       served)
    (castls-restart)
    (castls-test-check (not (jsonrpc-running-p old))
                       "castls-restart stopped the old server")
    (castls-test-check (and (castls--live-p)
                            (not (eq castls--connection old)))
                       "castls-restart started a new one")
    (let ((new castls--connection))
      (castls-test-check
       (seq-every-p (lambda (b) (eq (buffer-local-value 'castls--connection b)
                                    new))
                    served)
       "every buffer was opened in the new server")
      ;; The server dies behind castls.el's back.
      (ignore-errors (jsonrpc-request new :shutdown nil))
      (jsonrpc-notify new :exit nil)
      (castls-test-wait 10 "the server to exit"
                        (lambda () (not (jsonrpc-running-p new))))
      ;; The process is gone before its sentinel has run the
      ;; connection's on-shutdown, which says so: a busy machine runs it
      ;; later.
      (ignore-errors
        (castls-test-wait 10 "the exit message"
                          (lambda ()
                            (string-match-p
                             "exited; M-x castls-restart starts it again"
                             (castls-test-messages)))))
      (castls-test-check (equal (castls-test-mode-line) " castls[stopped]")
                         "the mode line says castls stopped"
                         (castls-test-mode-line))
      (castls-test-check
       (string-match-p "exited; M-x castls-restart starts it again"
                       (castls-test-messages))
       "a message says it exited and how to restart it")
      (castls-test-check
       (equal (castls-test-error #'castls-context)
              "castls has stopped for this buffer (M-x castls-restart)")
       "castls-context says castls stopped"
       (castls-test-error #'castls-context))
      (castls-restart)
      (castls-test-check (and (castls--live-p)
                              (not (eq castls--connection new)))
                         "castls-restart after a crash starts a server")
      (castls-test-check
       (seq-every-p (lambda (b) (with-current-buffer b (castls--live-p)))
                    served)
       "every buffer reattached without revisiting it")
      (castls-test-wait 30 "the new server to index"
                        (lambda () (not (castls--true
                                         (plist-get (castls-status)
                                                    :indexing)))))
      (goto-char (point-min))
      (search-forward "circle_area(r)")
      (castls-test-check
       (equal (plist-get (aref (plist-get (castls-context-items) :items) 0)
                         :symbol)
              "circle_area")
       "castls-context answers after the restart"))))

(defun castls-test-eglot-alone ()
  "castls alone under Eglot, for those who register it."
  (castls-eglot-register)
  (castls-test-check (eq (cdar eglot-server-programs) #'castls-eglot-contact)
                     "castls-eglot-register puts castls first"
                     (car eglot-server-programs))
  (castls-test-check
   (equal (castls-eglot-contact)
          (list 'castls-eglot-server (getenv "CASTLS_SERVER") "serve"))
   "the contact: castls' server class and command")
  (let ((file (castls-test-file "tools/run.sh")))
    (make-directory (file-name-directory file) t)
    (write-region "#!/bin/sh\nset -eu\nhello() {\n\techo hi\n}\nhello\n"
                  nil file nil 'silent)
    (with-current-buffer (find-file-noselect file)
      (castls-mode -1)
      (castls-test-check (eq major-mode 'sh-mode) "sh-mode")
      (eglot-ensure)
      (run-hooks 'post-command-hook)
      (castls-test-wait 30 "Eglot to connect castls" #'eglot-current-server)
      (let ((server (eglot-current-server)))
        (castls-test-check (eq (castls--server) server)
                           "castls' commands go through Eglot's castls")
        (goto-char (point-max))
        (insert "goodbye() {\n\techo bye\n}\n")
        (let ((ends (castls-test-chunks-end)))
          (castls-test-check (apply #'equal ends)
                             "Eglot's castls sees the unsaved edit" ends))
        (goto-char (point-min))
        (search-forward "echo hi")
        (castls-test-check (plist-get (castls-context-items) :budget)
                           "castls-context through Eglot")
        (set-buffer-modified-p nil)
        (eglot-shutdown server)
        (castls-test-check (not (jsonrpc-running-p server))
                           "Eglot's castls is gone")))))

(defun castls-test-run ()
  "The test body."
  (let* ((castls-program (getenv "CASTLS_SERVER"))
         (castls-settings '(:maxChunkSize 150 :budgetTokens 1500
                                          :exclude ("generated/")))
         (eglot-sync-connect t)
         (eglot-connect-timeout 30)
         (eglot-autoreconnect nil)
         source conn)
    (setq castls-test-repo (file-truename (getenv "CASTLS_TEST_REPO")))
    (make-directory (castls-test-file "generated") t)
    (write-region "def generated_helper():\n    return 1\n" nil
                  (castls-test-file "generated/gen.py") nil 'silent)
    (add-hook 'castls-progress-functions
              (lambda (_conn)
                (let ((b (get-file-buffer (castls-test-file "pkg/report.py"))))
                  (when b
                    (push (castls-test-mode-line b) castls-test-mode-lines)))))
    (setq source (castls-test-beside-eglot))
    (setq conn (buffer-local-value 'castls--connection source))
    (castls-test-context source)
    (castls-test-partial source)
    (castls-test-progress source)
    (castls-test-sync conn)
    (castls-test-fundamental conn)
    (castls-test-roots)
    (castls-test-no-project)
    (castls-test-show-message)
    (castls-test-missing-program)
    (castls-test-restart source)
    (with-current-buffer source
      (let ((pylsp (eglot-current-server)))
        (eglot-shutdown pylsp)
        (castls-test-check (not (jsonrpc-running-p pylsp)) "pylsp is gone")))
    (castls-test-eglot-alone)
    (let ((conns (hash-table-values castls--connections)))
      (castls-shutdown-all)
      (castls-test-check (and conns (not (seq-some #'jsonrpc-running-p conns)))
                         "castls-shutdown-all stopped the servers"))))

(condition-case err
    (castls-test-run)
  (error
   (setq castls-test-failures (1+ castls-test-failures))
   (castls-test-log "FAIL error: %S" err)))
(castls-test-log "%d failure(s)" castls-test-failures)
(kill-emacs (if (> castls-test-failures 0) 1 0))

;;; emacs_test.el ends here
