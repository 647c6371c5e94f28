;;; emacs_test.el --- castls.el against the real castls  -*- lexical-binding: t; -*-

;; Run by tests/editors/run.sh:
;;   emacs --batch -l castls.el -l emacs_test.el
;; with CASTLS_SERVER and CASTLS_TEST_REPO set.  Opens pkg/report.py, lets
;; Eglot connect to castls, runs the commands and checks the buffers,
;; shuts the server down and exits with the number of failures.

;;; Code:

(require 'castls)

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

(defun castls-test-run ()
  "The test body."
  (let* ((repo (file-truename (getenv "CASTLS_TEST_REPO")))
         (castls-program (getenv "CASTLS_SERVER"))
         (castls-settings '(:maxChunkSize 150 :budgetTokens 1500))
         (eglot-sync-connect t)
         (eglot-connect-timeout 30)
         (eglot-autoreconnect nil)
         (source nil)
         (server nil))
    (castls-test-check
     (eq (cdar eglot-server-programs) #'castls-eglot-contact)
     "castls is first in eglot-server-programs" (car eglot-server-programs))
    (castls-test-check
     (equal (castls-eglot-contact)
            (list 'castls-eglot-server (getenv "CASTLS_SERVER") "serve"))
     "the contact: castls' server class and command")
    ;; Go, Rust, Java, C and C++ modes send castls' names as languageId.
    (dolist (m '((go-mode . "go") (go-ts-mode . "go") (rust-mode . "rust")
                 (rust-ts-mode . "rust") (java-mode . "java")
                 (java-ts-mode . "java") (c-mode . "c") (c-ts-mode . "c")
                 (c++-mode . "cpp") (c++-ts-mode . "cpp")))
      (castls-test-check
       (equal (plist-get (cdr (assq (car m) (caar eglot-server-programs)))
                         :language-id)
              (cdr m))
       (format "castls serves %s as %s" (car m) (cdr m))))
    (find-file (expand-file-name "pkg/report.py" repo))
    (setq source (current-buffer))
    (castls-test-check (eq major-mode 'python-mode) "python-mode")
    (eglot-ensure)
    (run-hooks 'post-command-hook)
    (castls-test-wait 30 "the connection" #'eglot-current-server)
    (setq server (eglot-current-server))
    (castls-test-check (cl-typep server 'castls-eglot-server)
                       "Eglot connected castls" server)
    (castls-test-check (equal (file-truename (castls--root))
                              (file-name-as-directory repo))
                       "the project root is the git root" (castls--root))

    ;; Indexing done: castls-status lists the four files.
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
                         "castls-status: root, languages, index size"
                         (castls-status-lines status)))

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
      (castls-test-check (eq (eglot-current-server) server)
                         "geometry.py is managed by the same castls")
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
                         (plist-get small :budget)))

    ;; Reindex, then wait for it to finish.
    (castls-test-check (equal (castls-reindex) "castls: reindexing")
                       "castls-reindex says so")
    (castls-test-wait 30 "reindexing to finish"
                      (lambda ()
                        (not (castls--true
                              (plist-get (castls-status) :indexing)))))

    (eglot-shutdown server)
    (castls-test-check (not (jsonrpc-running-p server)) "the server is gone")))

(condition-case err
    (castls-test-run)
  (error
   (setq castls-test-failures (1+ castls-test-failures))
   (castls-test-log "FAIL error: %S" err)))
(castls-test-log "%d failure(s)" castls-test-failures)
(kill-emacs (if (> castls-test-failures 0) 1 0))

;;; emacs_test.el ends here
