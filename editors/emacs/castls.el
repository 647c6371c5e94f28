;;; castls.el --- Ranked code context from the castls language server  -*- lexical-binding: t; -*-

;; Version: 0.2.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, languages, convenience

;; This file is not part of GNU Emacs.

;;; Commentary:

;; castls is a language server that indexes a workspace into
;; syntax-aligned chunks and ranks the ones most useful at the cursor.
;; It is an auxiliary server: it runs beside the buffer's own language
;; server (pylsp, pyright, tsserver under Eglot or lsp-mode), not in its
;; place.  Eglot runs one server per buffer, so this package does not
;; go through Eglot: `castls-mode' starts `castls serve' itself over
;; Emacs's `jsonrpc' library, one server per project, and sends the
;; buffer's didOpen, didChange and didClose to it.
;;
;;   M-x castls-mode         castls for this buffer
;;   M-x castls-global-mode  castls for every file it can chunk, chosen
;;                           by file name (a .ts file in Fundamental
;;                           mode too) or major mode
;;   M-x castls-context      the ranked chunks at point in
;;                           *castls-context*, each with a button that
;;                           jumps to it
;;   M-x castls-search       the indexed chunks matching a query
;;   M-x castls-status       the index size and state
;;   M-x castls-reindex      reindex the workspace
;;   M-x castls-restart      restart the server; its buffers reattach
;;
;; The mode line shows " castls", " castls[indexing 40%]" while the
;; workspace is being indexed, or " castls[stopped]".  Errors the
;; server reports (`window/showMessage') go to *Warnings*.
;;
;; For other packages (gptel, ellama, ...), `castls-context-string'
;; returns the context at point as prompt text, and
;; `castls-context-items' the raw reply.
;;
;; Setup:
;;
;;   (require 'castls)
;;   (castls-global-mode 1)
;;
;; To run castls alone under Eglot instead (it then replaces the
;; buffer's other server): (castls-eglot-register).

;;; Code:

(require 'jsonrpc)
(require 'button)
(require 'cl-lib)
(require 'seq)
(require 'subr-x)
(require 'url-util)

(defgroup castls nil
  "Ranked code context from the castls language server."
  :group 'tools
  :prefix "castls-")

(defconst castls-version "0.2.0"
  "This package's version.")

(defcustom castls-program "castls"
  "The castls executable: a name looked up in `exec-path', or a path."
  :type 'string)

(defcustom castls-program-args '("serve")
  "Arguments for `castls-program'."
  :type '(repeat string))

(defcustom castls-settings nil
  "Server settings, sent as initializationOptions.
A plist such as (:maxChunkSize 1500 :budgetTokens 2000 :exclude
\(\"build/\") :maxFileSize 1048576 :logLevel \"warn\" :dbPath
\"/path/index.db\").  Lists (or vectors) are sent as JSON arrays.
A change takes effect at the next start (\\[castls-restart])."
  :type 'plist)

(defcustom castls-preview-lines 3
  "How many lines of each chunk `castls-context' shows."
  :type 'integer)

(defcustom castls-languages
  '(("\\.pyi?\\'" . "python")
    ("\\.[mc]?ts\\'" . "typescript")
    ("\\.tsx\\'" . "typescriptreact")
    ("\\.[mc]?js\\'" . "javascript")
    ("\\.jsx\\'" . "javascriptreact")
    ("\\.\\(?:sh\\|bash\\)\\'" . "shellscript")
    ("\\.\\(?:md\\|markdown\\)\\'" . "markdown")
    ("\\.go\\'" . "go")
    ("\\.rs\\'" . "rust")
    ("\\.java\\'" . "java")
    ("\\.[ch]\\'" . "c")
    ("\\.\\(?:cc\\|cpp\\|cxx\\|c\\+\\+\\|hpp\\|hh\\|hxx\\|h\\+\\+\\|ipp\\)\\'" . "cpp"))
  "The files castls serves, by name: (REGEXP . LANGUAGE-ID).
A file whose name matches none is served when its major mode is in
`castls-modes'."
  :type '(alist :key-type regexp :value-type string))

(defcustom castls-modes
  '((python-mode . "python") (python-ts-mode . "python")
    (typescript-mode . "typescript") (typescript-ts-mode . "typescript")
    (tsx-ts-mode . "typescriptreact")
    (js-mode . "javascript") (js-ts-mode . "javascript")
    (sh-mode . "shellscript") (bash-ts-mode . "shellscript")
    (markdown-mode . "markdown") (gfm-mode . "markdown")
    (markdown-ts-mode . "markdown")
    (go-mode . "go") (go-ts-mode . "go")
    (rust-mode . "rust") (rust-ts-mode . "rust")
    (java-mode . "java") (java-ts-mode . "java")
    (c-mode . "c") (c-ts-mode . "c")
    (c++-mode . "cpp") (c++-ts-mode . "cpp"))
  "The major modes castls serves whatever the file's name.
Each is (MODE . LANGUAGE-ID); modes derived from MODE count too."
  :type '(alist :key-type symbol :value-type string))

(defcustom castls-root-markers
  '("pyproject.toml" "setup.py" "setup.cfg" "package.json" "tsconfig.json"
    "deno.json" "go.mod" "Cargo.toml" "pom.xml" "build.gradle"
    "build.gradle.kts" "CMakeLists.txt" "compile_commands.json" "meson.build"
    "Gemfile" "composer.json" "Makefile")
  "Files that mark a project's root when it is not in a git repository.
The root of a file is the nearest directory above it holding .git,
else the nearest holding one of these; a file in neither is served
on its own, with no project indexed."
  :type '(repeat string))

(defcustom castls-send-changes-idle-time 0.5
  "Seconds of idle time before edits are sent to castls.
Requests send pending edits first, whatever this is."
  :type 'number)

(defcustom castls-request-timeout 10
  "Seconds to wait for castls to answer a request."
  :type 'number)

(defcustom castls-connect-timeout 30
  "Seconds to wait for castls to start and answer initialize."
  :type 'number)

(defcustom castls-events-buffer-size 0
  "How many characters of the protocol to keep in *castls ... events*.
0 keeps none (logging every edit costs time); nil keeps all.  Set it
before the server starts, e.g. to 2000000 to see what castls.el and
the server said to each other."
  :type '(choice (const :tag "All" nil) integer))

(defvar castls-progress-functions nil
  "Functions run with the connection after each `$/progress' report.
The mode line is updated before they run.")

;;;; Paths and positions

(defconst castls--uri-allowed-chars
  (let ((chars (copy-sequence url-path-allowed-chars)))
    (aset chars ?: nil)
    chars)
  "The characters a file URI's path keeps unescaped.")

(defun castls--path-to-uri (path)
  "The file URI of PATH (its true name, as Eglot sends it)."
  (concat "file://"
          (url-hexify-string
           (directory-file-name (file-local-name (file-truename path)))
           castls--uri-allowed-chars)))

(defun castls--uri-to-path (uri)
  "The file name of the file URI URI."
  (if (string-prefix-p "file://" uri)
      (decode-coding-string (url-unhex-string (substring uri 7)) 'utf-8)
    uri))

(defun castls--utf16-length (string)
  "How many UTF-16 code units STRING takes."
  (let ((n (length string)))
    (dotimes (i (length string))
      (when (> (aref string i) #xffff)
        (setq n (1+ n))))
    n))

(defun castls--position (&optional pos)
  "POS (default: point) as an LSP position with a UTF-16 column."
  (save-excursion
    (save-restriction
      (widen)
      (when pos (goto-char pos))
      (list :line (1- (line-number-at-pos nil t))
            :character (castls--utf16-length
                        (buffer-substring-no-properties
                         (line-beginning-position) (point)))))))

(defun castls--json (value)
  "VALUE (a setting) as `json-serialize' takes it.
A plist stays an object, other lists become arrays."
  (cond ((and (consp value) (keywordp (car value))
              (cl-evenp (length value)))
         (cl-loop for (k v) on value by #'cddr
                  append (list k (castls--json v))))
        ((consp value) (vconcat (mapcar #'castls--json value)))
        ((vectorp value) (vconcat (mapcar #'castls--json value)))
        (t value)))

(defun castls--settings ()
  "`castls-settings' as the initializationOptions object."
  (or (castls--json castls-settings) (make-hash-table)))

(defun castls--program ()
  "The castls executable's file name, or a `user-error' saying what to set."
  (let* ((name (if (file-name-directory castls-program)
                   (expand-file-name castls-program)
                 (executable-find castls-program)))
         (why (cond ((not name) "not found on `exec-path'")
                    ((file-directory-p name) "a directory")
                    ((not (file-executable-p name))
                     (if (file-exists-p name) "not executable" "no such file")))))
    (when why
      (user-error "castls: cannot run %S (%s); install castls (make install) \
or set `castls-program' to its path" castls-program why))
    name))

;;;; Projects

(defun castls--too-wide-p (dir)
  "Non-nil when DIR is the home directory or /: never a project root."
  (member (file-name-as-directory (file-truename dir))
          (list (file-name-as-directory (file-truename "~")) "/")))

(defun castls-find-root (file)
  "The project root of FILE, or nil when it belongs to none.
The nearest directory holding .git, else the nearest holding one of
`castls-root-markers'.  The home directory and / are never roots (a
dotfiles repository would have castls index all of home): a file
there is served on its own."
  (let* ((dir (file-name-directory (expand-file-name file)))
         (git (locate-dominating-file dir ".git"))
         (marked (locate-dominating-file
                  dir (lambda (d)
                        (seq-some (lambda (m)
                                    (file-exists-p (expand-file-name m d)))
                                  castls-root-markers))))
         (root (seq-find (lambda (d) (and d (not (castls--too-wide-p d))))
                         (list git marked))))
    (and root (file-name-as-directory (file-truename root)))))

(defun castls--language-id ()
  "The languageId of this buffer's file, or nil when castls does not serve it."
  (or (and buffer-file-name
           (let ((case-fold-search nil))
             (assoc-default buffer-file-name castls-languages #'string-match-p)))
      (cdr (seq-find (lambda (m) (derived-mode-p (car m))) castls-modes))))

;;;; Connections

(defclass castls-connection (jsonrpc-process-connection)
  ((root :initarg :root :reader castls-connection-root
         :documentation "The project root served, or nil for single files.")
   (progress :initform nil :accessor castls--progress
             :documentation "The last indexing report, nil when not indexing.")
   (stopping :initform nil :accessor castls--stopping
             :documentation "Non-nil once castls.el has asked it to exit.")
   (server-info :initform nil :accessor castls--server-info)
   (ready :initform nil :accessor castls--ready
          :documentation "Non-nil once the server answered initialize.")
   (proc :initform nil :accessor castls--proc
         :documentation "The server's process."))
  :documentation "A connection to a castls server for one project.")

(defvar castls--connections (make-hash-table :test #'equal)
  "The live connections, by project root (:none for single files).")

(defvar-local castls--connection nil
  "The connection serving this buffer.")
(defvar-local castls--uri nil "The URI this buffer was opened as.")
(defvar-local castls--root-key nil "This buffer's project root or :none.")
(defvar-local castls--version 0 "The version of the text last sent.")
(defvar-local castls--changes nil
  "Edits not sent yet, newest first, or :full to send the whole text.")
(defvar-local castls--before-change nil
  "The region `before-change-functions' saw last, with its LSP range.")
(defvar-local castls--change-timer nil "Idle timer sending `castls--changes'.")

(defun castls--buffers (key)
  "The live buffers attached to the project KEY."
  (seq-filter (lambda (b)
                (with-current-buffer b
                  (and castls--connection (equal castls--root-key key))))
              (buffer-list)))

(defun castls--update-mode-lines (conn)
  "Redisplay the mode lines of the buffers CONN serves."
  (dolist (b (buffer-list))
    (with-current-buffer b
      (when (eq castls--connection conn)
        (force-mode-line-update)))))

(defun castls--handle-progress (conn params)
  "Record CONN's `$/progress' PARAMS and show them in the mode lines."
  (let ((value (plist-get params :value)))
    (setf (castls--progress conn)
          (pcase (plist-get value :kind)
            ((or "begin" "report")
             (list :title (or (plist-get value :title)
                              (plist-get (castls--progress conn) :title))
                   :message (plist-get value :message)
                   :percentage (plist-get value :percentage)))
            (_ nil)))
    (castls--update-mode-lines conn)
    (run-hook-with-args 'castls-progress-functions conn)))

(defun castls--show-message (params)
  "Show a `window/showMessage' PARAMS: errors and warnings in *Warnings*."
  (let ((text (or (plist-get params :message) "")))
    (pcase (plist-get params :type)
      (1 (display-warning 'castls text :error))
      (2 (display-warning 'castls text :warning))
      (_ (message "castls: %s" (string-remove-prefix "castls: " text))))))

(defun castls--handle-notification (conn method params)
  "Handle CONN's notification METHOD with PARAMS."
  (pcase method
    ('$/progress (castls--handle-progress conn params))
    ('window/showMessage (castls--show-message params))))

(defun castls--handle-request (_conn method params)
  "Answer the server's request METHOD with PARAMS."
  (pcase method
    ('window/workDoneProgress/create nil)
    ('window/showMessageRequest (castls--show-message params) nil)
    (_ (jsonrpc-error :code -32601
                      :message (format "castls.el does not handle %s" method)))))

(defun castls--on-shutdown (conn)
  "CONN's server has exited: forget it and say so unless it was asked to."
  (let ((key (or (castls-connection-root conn) :none)))
    (when (eq (gethash key castls--connections) conn)
      (remhash key castls--connections)))
  (setf (castls--progress conn) nil)
  (castls--update-mode-lines conn)
  (unless (or (castls--stopping conn) (not (castls--ready conn)))
    (message "castls: the server for %s exited; M-x castls-restart starts \
it again" (or (castls-connection-root conn) "single files"))))

(defun castls--kill (conn)
  "End CONN's process if it still runs; wait a little for its end.
Unlike `jsonrpc-shutdown', never waits forever for a sentinel."
  (let ((proc (castls--proc conn))
        (deadline (+ (float-time) 2)))
    (when (process-live-p proc)
      (delete-process proc))
    (while (and (process-live-p proc) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (castls--update-mode-lines conn)))

(defun castls--start (root)
  "Start castls for ROOT (nil: single files); return the connection."
  (let* ((program (castls--program))
         (name (format "castls %s" (if root (abbreviate-file-name root)
                                     "(no project)")))
         (default-directory (or root default-directory))
         (proc nil)
         (conn
          (condition-case err
              (make-instance
               'castls-connection
               :name name :root root
               :events-buffer-scrollback-size castls-events-buffer-size
               :notification-dispatcher #'castls--handle-notification
               :request-dispatcher #'castls--handle-request
               :on-shutdown #'castls--on-shutdown
               :process
               (lambda ()
                 (setq proc
                       (make-process
                        :name name :command (cons program castls-program-args)
                        :connection-type 'pipe :coding 'utf-8-emacs-unix
                        :noquery t :file-handler nil
                        :stderr (get-buffer-create
                                 (format "*%s stderr*" name))))))
            (file-error
             (user-error "castls: cannot run %s: %s; set `castls-program' \
to the castls executable" program (error-message-string err))))))
    (setf (castls--proc conn) proc)
    (condition-case err
        (let ((reply
               (jsonrpc-request
                conn :initialize
                (list :processId (emacs-pid)
                      :clientInfo (list :name "castls.el"
                                        :version castls-version)
                      :rootUri (and root (castls--path-to-uri root))
                      :rootPath (and root (directory-file-name root))
                      :workspaceFolders
                      (if root
                          (vector (list :uri (castls--path-to-uri root)
                                        :name (file-name-nondirectory
                                               (directory-file-name root))))
                        [])
                      :initializationOptions (castls--settings)
                      :capabilities
                      (list :window (list :workDoneProgress t
                                          :showMessage (make-hash-table))
                            :general (list :positionEncodings ["utf-16"])
                            :textDocument
                            (list :synchronization
                                  (list :didSave t :dynamicRegistration
                                        :json-false))))
                :timeout castls-connect-timeout)))
          (setf (castls--server-info conn) (plist-get reply :serverInfo)
                (castls--ready conn) t)
          (jsonrpc-notify conn :initialized (make-hash-table)))
      (error
       (let ((stderr (ignore-errors
                       (buffer-name (jsonrpc-stderr-buffer conn)))))
         (setf (castls--stopping conn) t)
         (castls--kill conn)
         (user-error "castls: %s did not start: %s%s" program
                     (or (and (eq (car err) 'jsonrpc-error)
                              (alist-get 'jsonrpc-error-message (cdr err)))
                         (error-message-string err))
                     (if stderr (format " (its stderr: buffer %S)" stderr)
                       "")))))
    (puthash (or root :none) conn castls--connections)
    conn))

(defun castls--connection-for (root)
  "The running connection for ROOT, started when there is none."
  (let ((conn (gethash (or root :none) castls--connections)))
    (if (and conn (jsonrpc-running-p conn))
        conn
      (castls--start root))))

(defun castls--stop (conn)
  "Ask CONN's server to shut down and exit; wait for it."
  (setf (castls--stopping conn) t)
  (let ((key (or (castls-connection-root conn) :none)))
    (when (eq (gethash key castls--connections) conn)
      (remhash key castls--connections)))
  (when (jsonrpc-running-p conn)
    (ignore-errors (jsonrpc-request conn :shutdown nil :timeout 5))
    (ignore-errors (jsonrpc-notify conn :exit nil))
    (let ((deadline (+ (float-time) 5)))
      (while (and (jsonrpc-running-p conn) (< (float-time) deadline))
        (accept-process-output nil 0.05))))
  (castls--kill conn))

(defun castls-shutdown-all ()
  "Shut down every castls server this Emacs started."
  (interactive)
  (dolist (conn (hash-table-values castls--connections))
    (castls--stop conn)))

(add-hook 'kill-emacs-hook #'castls-shutdown-all)

;;;; Documents

(defun castls--text ()
  "The whole buffer's text."
  (save-restriction
    (widen)
    (buffer-substring-no-properties (point-min) (point-max))))

(defun castls--live-p ()
  "Non-nil when this buffer's connection is running."
  (and castls--connection (jsonrpc-running-p castls--connection)))

(defun castls--attach ()
  "Open this buffer in its project's castls server."
  (let* ((root (castls-find-root buffer-file-name))
         (conn (castls--connection-for root)))
    (setq castls--connection conn
          castls--root-key (or root :none)
          castls--uri (castls--path-to-uri buffer-file-name)
          castls--version 0
          castls--changes nil
          castls--before-change nil)
    (add-hook 'before-change-functions #'castls--before-change nil t)
    (add-hook 'after-change-functions #'castls--after-change nil t)
    (add-hook 'after-revert-hook #'castls--after-revert nil t)
    (add-hook 'after-save-hook #'castls--after-save nil t)
    (add-hook 'kill-buffer-hook #'castls--detach nil t)
    (add-hook 'change-major-mode-hook #'castls--major-mode-change nil t)
    (add-hook 'after-set-visited-file-name-hook #'castls--renamed nil t)
    (jsonrpc-notify conn :textDocument/didOpen
                    (list :textDocument
                          (list :uri castls--uri
                                :languageId (or (castls--language-id) "")
                                :version castls--version
                                :text (castls--text))))
    (force-mode-line-update)))

(defun castls--detach ()
  "Close this buffer in its castls server."
  (when castls--change-timer
    (cancel-timer castls--change-timer)
    (setq castls--change-timer nil))
  (when (castls--live-p)
    (jsonrpc-notify castls--connection :textDocument/didClose
                    (list :textDocument (list :uri castls--uri))))
  (remove-hook 'before-change-functions #'castls--before-change t)
  (remove-hook 'after-change-functions #'castls--after-change t)
  (remove-hook 'after-revert-hook #'castls--after-revert t)
  (remove-hook 'after-save-hook #'castls--after-save t)
  (remove-hook 'kill-buffer-hook #'castls--detach t)
  (remove-hook 'change-major-mode-hook #'castls--major-mode-change t)
  (remove-hook 'after-set-visited-file-name-hook #'castls--renamed t)
  (setq castls--connection nil castls--changes nil))

(defun castls--renamed ()
  "The buffer visits another file now: close the old one, open the new."
  (castls--detach)
  (condition-case err
      (if (and buffer-file-name (castls--language-id))
          (castls--attach)
        (castls-mode -1))
    (error (castls-mode -1)
           (message "%s" (error-message-string err)))))

(defun castls--major-mode-change ()
  "The major mode is about to change: close the buffer.
`castls-global-mode' opens it again under the new mode."
  (castls-mode -1))

(defun castls--before-change (beg end)
  "Remember the region BEG..END about to change, and its LSP range."
  (setq castls--before-change
        (list beg end (castls--position beg) (castls--position end))))

(defun castls--after-change (beg end old-length)
  "Queue the change of BEG..END (OLD-LENGTH before) for the server.
The range sent is the one `castls--before-change' saw, which holds
the changed text (and can be larger, as for `capitalize-word')."
  (pcase castls--before-change
    ((and `(,b1 ,e1 ,p1 ,p2)
          (guard (and (listp castls--changes)
                      (<= b1 beg) (<= (+ beg old-length) e1))))
     (let ((new-end (+ e1 (- end beg old-length))))
       (push (list :range (list :start p1 :end p2)
                   :text (buffer-substring-no-properties b1 new-end))
             castls--changes)))
    (_ (setq castls--changes :full)))
  (setq castls--before-change nil)
  (when castls--change-timer (cancel-timer castls--change-timer))
  (setq castls--change-timer
        (run-with-idle-timer castls-send-changes-idle-time nil
                             #'castls--send-changes-in (current-buffer))))

(defun castls--send-changes-in (buffer)
  "Send BUFFER's pending edits."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (setq castls--change-timer nil)
      (castls--send-changes))))

(defun castls--send-changes ()
  "Send this buffer's pending edits in one didChange."
  (when (and castls--changes (castls--live-p))
    (let ((changes (if (eq castls--changes :full)
                       (vector (list :text (castls--text)))
                     (vconcat (reverse castls--changes)))))
      (setq castls--changes nil
            castls--version (1+ castls--version))
      (jsonrpc-notify castls--connection :textDocument/didChange
                      (list :textDocument (list :uri castls--uri
                                                :version castls--version)
                            :contentChanges changes)))))

(defun castls--after-revert ()
  "The buffer was reverted: send its whole text."
  (setq castls--changes :full)
  (castls--send-changes))

(defun castls--after-save ()
  "Tell the server the buffer was saved."
  (castls--send-changes)
  (when (castls--live-p)
    (jsonrpc-notify castls--connection :textDocument/didSave
                    (list :textDocument (list :uri castls--uri)))))

;;;; The modes

(defun castls--mode-line ()
  "castls' part of the mode line."
  (let* ((conn castls--connection)
         (progress (and conn (castls--progress conn)))
         (pct (plist-get progress :percentage)))
    (cond ((not (castls--live-p))
           (propertize " castls[stopped]" 'face 'warning
                       'help-echo "castls is not running: M-x castls-restart"))
          (progress
           (propertize (format " castls[indexing%s]"
                               (if pct (format " %d%%" pct) ""))
                       'help-echo
                       (format "castls: indexing %s; context may be partial"
                               (or (plist-get progress :message) ""))))
          (t " castls"))))

;;;###autoload
(define-minor-mode castls-mode
  "Ranked code context from castls, beside this buffer's own language server.
Starts castls for the buffer's project (or reuses the server running
there) and keeps it up to date with the buffer's text.  The mode line
shows indexing progress.  Commands: `castls-context',
`castls-search', `castls-status', `castls-reindex', `castls-restart'."
  :lighter (:eval (castls--mode-line))
  :group 'castls
  (cond
   ((not castls-mode) (castls--detach))
   ((not buffer-file-name)
    (setq castls-mode nil)
    (message "castls-mode: %s visits no file" (buffer-name)))
   ;; Already open in a running server (a globalized mode can turn a
   ;; mode on twice).
   ((and (castls--live-p)
         (equal castls--uri (castls--path-to-uri buffer-file-name))))
   (t
    (condition-case err
        (castls--attach)
      (error
       (castls--detach)
       (setq castls-mode nil)
       (message "%s" (error-message-string err)))))))

(defun castls--turn-on ()
  "Turn on `castls-mode' in a buffer whose file castls serves."
  (when (and buffer-file-name (not (file-remote-p buffer-file-name))
             (castls--language-id))
    (castls-mode 1)))

;;;###autoload
(define-globalized-minor-mode castls-global-mode castls-mode castls--turn-on
  :group 'castls)

;;;; Eglot, for castls alone

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
  "The major modes `castls-eglot-register' gives to castls.")

(defvar eglot-server-programs)
(declare-function eglot-current-server "ext:eglot")
(declare-function eglot-reconnect "ext:eglot")

;; Defined once Eglot is loaded, which this package does not require
;; (evaluated then, so that compiling needs no Eglot either).
(with-eval-after-load 'eglot
  (eval '(progn
           (defclass castls-eglot-server (eglot-lsp-server) ()
             :documentation "An Eglot connection to castls.")
           (cl-defmethod eglot-initialization-options
             ((_server castls-eglot-server))
             "Send `castls-settings' as the initializationOptions."
             (castls--settings)))
        t))

;;;###autoload
(defun castls-eglot-contact (&optional _interactive)
  "The Eglot contact for castls: its server class and command line."
  (cons 'castls-eglot-server (cons (castls--program) castls-program-args)))

;;;###autoload
(defun castls-eglot-register ()
  "Let Eglot run castls for the modes in `castls-eglot-modes'.
Eglot runs one server per buffer: castls then takes the place of
pylsp, pyright, tsserver... in these modes.  To keep them, use
`castls-mode' instead (and not both: each would start a server)."
  (interactive)
  (require 'eglot)
  (add-to-list 'eglot-server-programs
               (cons castls-eglot-modes #'castls-eglot-contact)))

(defun castls--eglot-server ()
  "The Eglot server managing this buffer, when it is castls."
  (let ((server (and (featurep 'eglot) (eglot-current-server))))
    (and server (object-of-class-p server 'castls-eglot-server) server)))

;;;; Requests

(defun castls--server ()
  "The castls connection serving this buffer, or a `user-error'.
castls-mode's connection, else an Eglot server that is castls."
  (cond ((castls--live-p) castls--connection)
        ((castls--eglot-server))
        (castls-mode
         (user-error "castls has stopped for this buffer (M-x castls-restart)"))
        (t (user-error "castls is not on in this buffer (M-x castls-mode)"))))

(defun castls--request (method params)
  "Send castls METHOD with PARAMS from this buffer; return the reply.
The buffer's pending edits go first."
  (let ((server (castls--server)))
    (condition-case err
        (if (eq server castls--connection)
            (progn (castls--send-changes)
                   (jsonrpc-request server method params
                                    :timeout castls-request-timeout))
          ;; Eglot sends its pending changes before a deferred request.
          (jsonrpc-request server method params :deferred method
                           :timeout castls-request-timeout))
      (jsonrpc-error
       (user-error "castls: %s failed: %s" method
                   (or (alist-get 'jsonrpc-error-message (cdr err))
                       (error-message-string err)))))))

(defun castls--document ()
  "This buffer's TextDocumentIdentifier."
  (unless buffer-file-name
    (user-error "castls: %s visits no file" (buffer-name)))
  (list :uri (or (and (castls--live-p) castls--uri)
                 (castls--path-to-uri buffer-file-name))))

(defun castls--budget (params budget)
  "PARAMS with a token BUDGET when BUDGET is non-nil."
  (if budget (append params (list :budget (list :tokens budget))) params))

;;;###autoload
(defun castls-context-items (&optional pos budget)
  "The castls/context reply for POS (default: point) as a plist.
BUDGET is in tokens (default: the server's budgetTokens).  The reply
has :items (a vector of plists with :uri :range :language :kind :symbol
:parents :score :signals :why :clipped :text), :budget, :noContext and,
while the workspace is being indexed, :indexing.  :why says why castls
ranked the item, in words."
  (castls--request :castls/context
                   (castls--budget (list :textDocument (castls--document)
                                         :position (castls--position pos))
                                   budget)))

(defun castls--root ()
  "The root of this buffer's castls workspace, or nil."
  (cond ((castls--live-p) (castls-connection-root castls--connection))
        (buffer-file-name (castls-find-root buffer-file-name))))

(defun castls--relative (uri root)
  "URI's file relative to ROOT when inside it."
  (let ((path (castls--uri-to-path uri)))
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
    (find-file-other-window (castls--uri-to-path (plist-get item :uri)))
    (goto-char (point-min))
    (forward-line (plist-get (plist-get (plist-get item :range) :start)
                             :line))
    (recenter 0)))

(defconst castls-partial-note "(indexing: results may be partial)"
  "What a reply given while the workspace is being indexed is shown with.")

(defun castls--show (buffer-name heading reply root)
  "Show REPLY's items in BUFFER-NAME under HEADING; return the buffer.
A reply given while indexing has `castls-partial-note' after HEADING."
  (let ((buf (get-buffer-create buffer-name))
        (items (append (plist-get reply :items) nil))
        (n 0))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (castls-context-mode)
        (insert (propertize heading 'face 'bold))
        (when (castls--true (plist-get reply :indexing))
          (insert "  " (propertize castls-partial-note 'face 'warning)))
        (insert "\n\n")
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
                           (castls--path-to-uri buffer-file-name) root)
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
  (let ((status (castls--request :castls/status (make-hash-table))))
    (message "%s" (string-join (castls-status-lines status) "\n"))
    status))

;;;###autoload
(defun castls-reindex ()
  "Reindex the workspace."
  (interactive)
  (castls--request :workspace/executeCommand
                   (list :command "castls.reindex" :arguments []))
  (message "castls: reindexing"))

;;;###autoload
(defun castls-restart ()
  "Restart the castls server of this buffer's project.
Every buffer it served is opened again in the new server."
  (interactive)
  (cond
   (castls-mode
    (let* ((key castls--root-key)
           (old (gethash key castls--connections))
           (buffers (castls--buffers key)))
      (when old (castls--stop old))
      (dolist (b buffers)
        (with-current-buffer b
          (castls--detach)
          (condition-case err
              (castls--attach)
            (error (castls-mode -1)
                   (message "%s" (error-message-string err))))))
      (message "castls: restarted for %s (%d buffer%s)"
               (if (stringp key) (abbreviate-file-name key) "single files")
               (length buffers) (if (= (length buffers) 1) "" "s"))))
   ((castls--eglot-server) (eglot-reconnect (castls--eglot-server)))
   (t (user-error "castls is not on in this buffer (M-x castls-mode)"))))

(provide 'castls)
;;; castls.el ends here
