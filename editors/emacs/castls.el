;;; castls.el --- Ranked code context from the castls language server  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, languages, convenience

;; This file is not part of GNU Emacs.

;;; Commentary:

;; castls is a language server that indexes a workspace into
;; syntax-aligned chunks and ranks the ones most useful at the cursor.
;; This package registers it with Eglot for Python, TypeScript/TSX,
;; JavaScript, Go, Rust, Java, C, C++, shell scripts and Markdown, and
;; adds:
;;
;;   M-x castls-context   the ranked chunks at point in *castls-context*,
;;                        each with a button that jumps to it
;;   M-x castls-search    the indexed chunks matching a query
;;   M-x castls-status    the index size and state
;;   M-x castls-reindex   reindex the workspace
;;
;; For other packages (gptel, ellama, ...), `castls-context-string'
;; returns the context at point as prompt text, and `castls-context-items'
;; the raw items.
;;
;; Setup:
;;
;;   (require 'castls)          ; or let the autoloads do it
;;   (add-hook 'python-mode-hook #'eglot-ensure)
;;
;; Eglot runs one server per major mode: registering castls puts it in
;; front of the other servers for these modes.

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(require 'button)
(require 'subr-x)

(defgroup castls nil
  "Ranked code context from the castls language server."
  :group 'tools
  :prefix "castls-")

(defcustom castls-program "castls"
  "The castls executable: a name looked up in `exec-path', or a path."
  :type 'string)

(defcustom castls-program-args '("serve")
  "Arguments for `castls-program'."
  :type '(repeat string))

(defcustom castls-settings nil
  "Server settings, sent as initializationOptions.
A plist such as (:maxChunkSize 1500 :budgetTokens 2000 :exclude
[\"build/\"] :maxFileSize 1048576 :logLevel \"warn\")."
  :type 'plist)

(defcustom castls-preview-lines 3
  "How many lines of each chunk `castls-context' shows."
  :type 'integer)

;;;###autoload
(defconst castls-eglot-modes
  '((python-mode :language-id "python")
    (python-ts-mode :language-id "python")
    (typescript-mode :language-id "typescript")
    (typescript-ts-mode :language-id "typescript")
    (tsx-ts-mode :language-id "typescriptreact")
    (js-mode :language-id "javascript")
    (js-ts-mode :language-id "javascript")
    (sh-mode :language-id "shellscript")
    (bash-ts-mode :language-id "shellscript")
    (markdown-mode :language-id "markdown")
    (gfm-mode :language-id "markdown")
    (markdown-ts-mode :language-id "markdown")
    (go-mode :language-id "go")
    (go-ts-mode :language-id "go")
    (rust-mode :language-id "rust")
    (rust-ts-mode :language-id "rust")
    (java-mode :language-id "java")
    (java-ts-mode :language-id "java")
    (c-mode :language-id "c")
    (c-ts-mode :language-id "c")
    (c++-mode :language-id "cpp")
    (c++-ts-mode :language-id "cpp"))
  "The major modes castls serves, with the languageId each sends.")

;;;###autoload
(defun castls-eglot-contact (&optional _interactive)
  "The Eglot contact for castls: its server class and command line."
  (cons 'castls-eglot-server (cons castls-program castls-program-args)))

;;;###autoload
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               (cons castls-eglot-modes #'castls-eglot-contact)))

(defclass castls-eglot-server (eglot-lsp-server) ()
  :documentation "An Eglot connection to castls.")

(cl-defmethod eglot-initialization-options ((_server castls-eglot-server))
  "Send `castls-settings' as the initializationOptions."
  (or castls-settings eglot--{}))

;;;; Requests

(defun castls--server ()
  "The castls connection managing this buffer, or a `user-error'."
  (let ((server (eglot-current-server)))
    (unless (cl-typep server 'castls-eglot-server)
      (user-error "castls is not running for this buffer (M-x eglot)"))
    server))

(defun castls--request (method params)
  "Send castls METHOD with PARAMS from this buffer; return the reply."
  (let ((server (castls--server)))
    (when (fboundp 'eglot--signal-textDocument/didChange)
      (eglot--signal-textDocument/didChange))
    (jsonrpc-request server method params)))

(defun castls--budget (params budget)
  "PARAMS with a token BUDGET when BUDGET is non-nil."
  (if budget (append params (list :budget (list :tokens budget))) params))

;;;###autoload
(defun castls-context-items (&optional pos budget)
  "The castls/context reply for POS (default: point) as a plist.
BUDGET is in tokens (default: the server's budgetTokens).  The reply
has :items (a vector of plists with :uri :range :language :kind :symbol
:parents :score :signals :why :clipped :text), :budget and :noContext.
:why says why castls ranked the item, in words."
  (save-excursion
    (when pos (goto-char pos))
    (castls--request :castls/context
                     (castls--budget (eglot--TextDocumentPositionParams)
                                     budget))))

(defun castls--root ()
  "The root of the current castls workspace."
  (project-root (eglot--project (castls--server))))

(defun castls--relative (uri root)
  "URI's file relative to ROOT when inside it."
  (let ((path (eglot--uri-to-path uri)))
    (if (and root (string-prefix-p (file-truename root)
                                   (file-truename path)))
        (file-relative-name (file-truename path) (file-truename root))
      (abbreviate-file-name path))))

(defun castls--lines (range)
  "\"3-12\": the 1-based, inclusive lines of a whole-line RANGE."
  (let* ((first (1+ (plist-get (plist-get range :start) :line)))
         (end (plist-get range :end))
         (last (if (eq (plist-get end :character) 0)
                   (plist-get end :line)
                 (1+ (plist-get end :line)))))
    (if (<= last first) (format "%d" first) (format "%d-%d" first last))))

(defun castls--true (v)
  "Non-nil when the JSON value V is true."
  (and v (not (eq v :json-false))))

(defun castls--names (list)
  "The names in LIST, a string the server sends comma-separated.
Older servers separated them with spaces."
  (and (stringp list) (split-string list "[, \t\n]+" t)))

(defun castls-why (item)
  "Why castls ranked ITEM: the server's own words, its :why.
A server older than :why gets a few words from the signals."
  (let ((why (plist-get item :why)))
    (if (and (stringp why) (not (string-empty-p why)))
        why
      (let* ((s (plist-get item :signals))
             (names (castls--names (plist-get s :defines)))
             words)
        (cond (names
               (push (concat "defines " (string-join names ", ")) words))
              ((> (or (plist-get s :definition) 0) 0)
               (push "defines a name used near the cursor" words)))
        (when (castls--true (plist-get s :import))
          (push "in a file this one imports" words))
        (when (castls--true (plist-get s :sameFile))
          (push "in this file" words))
        (when (> (or (plist-get s :bm25) 0) 0) (push "matching words" words))
        (if words (string-join (nreverse words) "; ") "related text")))))

(defun castls--title (item)
  "ITEM's name: its symbol, the names it defines, or its first line."
  (let ((symbol (plist-get item :symbol))
        (names (castls--names (plist-get (plist-get item :signals)
                                         :defines))))
    (cond ((and (stringp symbol) (not (string-empty-p symbol))) symbol)
          (names (string-join names ", "))
          (t (string-trim
              (or (seq-find (lambda (l) (string-match-p "[^ \t]" l))
                            (split-string (plist-get item :text) "\n"))
                  ""))))))

;;;###autoload
(defun castls-format (reply &optional root)
  "REPLY (a castls/context or castls/search plist) as prompt text.
Each chunk comes under a header naming its file (relative to ROOT) and
lines, in a Markdown fence tagged with its language."
  (mapconcat
   (lambda (item)
     (let* ((text (string-remove-suffix "\n" (plist-get item :text)))
            (headers (mapcar (lambda (p) (plist-get p :header))
                             (plist-get item :parents)))
            (body (string-join (append headers (list text)) "\n"))
            (fence "```"))
       (with-temp-buffer
         (insert body)
         (goto-char (point-min))
         (while (re-search-forward "`+" nil t)
           (when (>= (length (match-string 0)) (length fence))
             (setq fence (make-string (1+ (length (match-string 0))) ?`)))))
       (format "### %s (lines %s)\n%s%s\n%s\n%s\n"
               (castls--relative (plist-get item :uri) root)
               (castls--lines (plist-get item :range))
               fence (plist-get item :language) body fence)))
   (plist-get reply :items) "\n"))

;;;###autoload
(defun castls-context-string (&optional pos budget)
  "The context at POS (default: point) as prompt text, for other packages.
BUDGET is in tokens.  Returns \"\" when castls found nothing related."
  (castls-format (castls-context-items pos budget) (castls--root)))

;;;; The context buffer

(define-derived-mode castls-context-mode special-mode "castls"
  "The ranked chunks of a castls request; RET on a file name jumps to it."
  (setq truncate-lines t))

(define-key castls-context-mode-map (kbd "n") #'forward-button)
(define-key castls-context-mode-map (kbd "p") #'backward-button)
(define-key castls-context-mode-map (kbd "TAB") #'forward-button)

(defun castls--jump (button)
  "Visit the chunk BUTTON names."
  (let ((item (button-get button 'castls-item)))
    (find-file-other-window (eglot--uri-to-path (plist-get item :uri)))
    (goto-char (point-min))
    (forward-line (plist-get (plist-get (plist-get item :range) :start)
                             :line))
    (recenter 0)))

(defun castls--show (buffer-name heading reply root)
  "Show REPLY's items in BUFFER-NAME under HEADING; return the buffer."
  (let ((buf (get-buffer-create buffer-name))
        (items (append (plist-get reply :items) nil))
        (n 0))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (castls-context-mode)
        (insert (propertize heading 'face 'bold) "\n\n")
        (dolist (item items)
          (setq n (1+ n))
          (insert (format "%d. " n))
          (insert-text-button
           (format "%s:%s" (castls--relative (plist-get item :uri) root)
                   (castls--lines (plist-get item :range)))
           'castls-item item 'action #'castls--jump
           'help-echo "RET: visit this chunk")
          (insert (format "  score %.2f  %s%s\n   %s\n"
                          (plist-get item :score) (castls--title item)
                          (if (castls--true (plist-get item :clipped))
                              "  (clipped)" "")
                          (castls-why item)))
          (let ((shown 0))
            (dolist (line (split-string (plist-get item :text) "\n"))
              (when (and (< shown castls-preview-lines)
                         (string-match-p "[^ \t]" line))
                (insert "   | " line "\n")
                (setq shown (1+ shown))))))
        (when (null items)
          (insert "No related code found.\n"))
        (goto-char (point-min))
        (ignore-errors (forward-button 1))))
    (display-buffer buf)
    buf))

;;;###autoload
(defun castls-context (&optional budget)
  "Show the chunks castls ranks for point in *castls-context*.
With a prefix argument, ask for a token BUDGET."
  (interactive (list (when current-prefix-arg
                       (read-number "Token budget: " 2000))))
  (let* ((reply (castls-context-items nil budget))
         (root (castls--root))
         (budget (plist-get reply :budget)))
    (castls--show "*castls-context*"
                  (format "castls context for %s:%d  (%d chunks, %d/%d tokens)"
                          (castls--relative
                           (eglot--path-to-uri (buffer-file-name)) root)
                          (line-number-at-pos)
                          (length (plist-get reply :items))
                          (plist-get budget :used) (plist-get budget :limit))
                  reply root)))

;;;###autoload
(defun castls-search (query)
  "Show the indexed chunks best matching QUERY in *castls-search*."
  (interactive (list (read-string "castls search: " nil nil
                                  (thing-at-point 'symbol t))))
  (let ((reply (castls--request :castls/search (list :query query)))
        (root (castls--root)))
    (castls--show "*castls-search*"
                  (format "castls search \"%s\"  (%d chunks)" query
                          (length (plist-get reply :items)))
                  reply root)))

(defun castls--size (bytes)
  "BYTES for people."
  (cond ((< bytes 1024) (format "%d B" bytes))
        ((< bytes (* 1024 1024)) (format "%d KB" (/ bytes 1024)))
        (t (format "%.1f MB" (/ bytes 1048576.0)))))

(defun castls-status-lines (status)
  "The castls/status reply STATUS as lines of text."
  (cons (format "castls: %d files, %d chunks, %d symbols%s"
                (plist-get status :files) (plist-get status :chunks)
                (plist-get status :spans)
                (if (castls--true (plist-get status :indexing))
                    " (indexing)" ""))
        (mapcar
         (lambda (r)
           (if (plist-get r :error)
               (format "  %s: %s" (plist-get r :path) (plist-get r :error))
             (let (langs)
               (cl-loop for (l n) on (plist-get r :languages) by #'cddr
                        do (push (format "%s %d" (substring (symbol-name l) 1)
                                         n)
                                 langs))
               (format "  %s: %d files (%s), index %s, %s"
                       (plist-get r :path) (or (plist-get r :files) 0)
                       (string-join (sort langs #'string<) ", ")
                       (castls--size (or (plist-get r :databaseBytes) 0))
                       (or (plist-get r :database) "?")))))
         (plist-get status :roots))))

;;;###autoload
(defun castls-status ()
  "Show the index size and state; return the castls/status reply."
  (interactive)
  (let ((status (castls--request :castls/status eglot--{})))
    (message "%s" (string-join (castls-status-lines status) "\n"))
    status))

;;;###autoload
(defun castls-reindex ()
  "Reindex the workspace."
  (interactive)
  (castls--request :workspace/executeCommand
                   (list :command "castls.reindex" :arguments []))
  (message "castls: reindexing"))

(provide 'castls)
;;; castls.el ends here
