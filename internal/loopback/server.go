package loopback

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxBody bounds a request body; real APIs refuse far smaller ones.
const maxBody = 64 << 20

// Server is a scripted model server speaking the Anthropic Messages,
// OpenAI Chat Completions and OpenAI Responses wire protocols. It is an
// http.Handler; Start also serves it on a loopback port.
type Server struct {
	sc        Scenario
	ruleNames []string
	invalid   error // the scenario's validation error, answered to every API request

	ctx    context.Context // cancelled by Close to end in-flight handlers
	cancel context.CancelFunc

	mu   sync.Mutex
	used []int // requests answered per rule
	// callAnswers maps each Responses call_id the server sent to the
	// request it answered, to tell parallel calls from successive ones.
	callAnswers map[string]int
	// cached holds the hashes of the prompt prefixes requests wrote to
	// the cache (cache.go).
	cached map[string]bool
	// canonMemo remembers canonical block JSON by raw block (canonOf);
	// canonBytes is what it holds.
	canonMu    sync.Mutex
	canonMemo  map[string][]byte
	canonBytes int
	signer     signer
	entries    []LogEntry // every API request that arrived; entries[i].Seq == i+1
	ids        int
	closed     bool
	httpSrv    *http.Server
	ln         net.Listener
	serveErr   chan error
	onEntry    func(LogEntry) // called once per finished request, outside mu
	errorLog   *log.Logger

	handlers sync.WaitGroup
}

// New returns a server for sc, which it does not modify; the caller must
// not modify sc afterwards either. An invalid scenario is reported by
// Start and answered to every request with a 500 that says what is wrong.
func New(sc *Scenario) *Server {
	s := &Server{errorLog: log.New(io.Discard, "", 0), signer: newSigner()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if sc == nil {
		s.invalid = errors.New("scenario is nil")
		return s
	}
	s.sc = *sc
	s.sc.Rules = slices.Clone(sc.Rules)
	s.invalid = s.sc.Validate()
	s.used = make([]int, len(s.sc.Rules))
	for i, r := range s.sc.Rules {
		name := r.Name
		if name == "" {
			name = fmt.Sprintf("rule[%d]", i)
		}
		s.ruleNames = append(s.ruleNames, name)
	}
	return s
}

// Start serves on 127.0.0.1 at a free port.
func (s *Server) Start() error {
	return s.listen("127.0.0.1:0")
}

// listen serves on addr, which must be a loopback address.
func (s *Server) listen(addr string) error {
	if s.invalid != nil {
		return fmt.Errorf("invalid scenario: %w", s.invalid)
	}
	if err := checkLoopback(addr); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errors.New("loopback server is closed")
	case s.httpSrv != nil:
		return errors.New("loopback server already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	s.ln = ln
	s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ErrorLog: s.errorLog}
	s.serveErr = make(chan error, 1)
	go func() { s.serveErr <- s.httpSrv.Serve(ln) }()
	return nil
}

// checkLoopback refuses addresses that would listen beyond this machine.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("address %q is not a loopback address: the loopback server only listens on 127.0.0.1, ::1 or localhost", addr)
	}
	return nil
}

// URL is the server's root, e.g. "http://127.0.0.1:PORT" (no /v1), or ""
// before Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String()
}

// Close stops the listener, ends every in-flight handler and waits for
// them. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	srv := s.httpSrv
	s.mu.Unlock()

	s.cancel()
	var err error
	if srv != nil {
		err = srv.Close()
		if serveErr := <-s.serveErr; !errors.Is(serveErr, http.ErrServerClosed) {
			err = errors.Join(err, serveErr)
		}
	}
	s.handlers.Wait()
	return err
}

// Log returns every request that has arrived, in order of arrival. A
// request still in flight is in it already (its entry is not Done), so a
// client that has seen any part of a response, or given up on one, finds
// its request counted.
func (s *Server) Log() []LogEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.entries)
}

// enter admits a handler unless the server is closed.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// arrive logs a request as it arrives and returns its entry, numbered.
func (s *Server) arrive(e LogEntry) LogEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Seq = len(s.entries) + 1
	s.entries = append(s.entries, e)
	return e
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s%06d", prefix, s.ids)
}

func (s *Server) pickRule(req *request) (name string, resp *Response, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, resp, ok := pick(s.sc.Rules, s.used, req)
	if !ok {
		return "", nil, false
	}
	return s.ruleNames[i], resp, true
}

// rememberCalls records that a's calls came in answer to request seq.
func (s *Server) rememberCalls(a *answer, seq int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.callAnswers == nil {
		s.callAnswers = map[string]int{}
	}
	for _, c := range a.calls {
		s.callAnswers[c.id] = seq
	}
}

// sameAnswer reports whether this server sent call ids a and b in one
// answer.
func (s *Server) sameAnswer(a, b string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	seqA, okA := s.callAnswers[a]
	seqB, okB := s.callAnswers[b]
	return okA && okB && seqA == seqB
}

// update replaces the logged entry of request e.Seq with e.
func (s *Server) update(e LogEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[e.Seq-1] = e
}

// complete logs the finished entry e and hands it to the sink.
func (s *Server) complete(e LogEntry) {
	s.mu.Lock()
	s.entries[e.Seq-1] = e
	sink := s.onEntry
	s.mu.Unlock()
	if sink != nil {
		sink(e)
	}
}

// ServeHTTP answers POST /v1/messages (Anthropic), POST
// /v1/chat/completions (OpenAI), POST /v1/responses (OpenAI Responses),
// GET /v1/models (the scenario's models, models.go) and GET /_log (the
// request log as JSON).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if !s.enter() {
		http.Error(w, "loopback server is closed", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()

	if r.URL.Path == "/_log" {
		s.serveLog(w, r)
		return
	}
	x := &exchange{s: s, w: w, ctx: ctx, entry: s.arrive(LogEntry{Method: r.Method, Path: r.URL.Path, Start: start})}
	// Every path below finishes the exchange; this catches a panic.
	defer x.finish(http.StatusInternalServerError, "handler failed")
	x.serve(r)
}

func (s *Server) serveLog(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "GET /_log only", http.StatusMethodNotAllowed)
		return
	}
	entries := s.Log()
	if entries == nil {
		entries = []LogEntry{}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(mustJSON(entries))
}

// exchange is one API request being answered.
type exchange struct {
	s     *Server
	w     http.ResponseWriter
	ctx   context.Context
	entry LogEntry
	done  bool
}

// finish completes the log entry, once.
func (x *exchange) finish(status int, outcome string) {
	if x.done {
		return
	}
	x.done = true
	x.entry.End = time.Now()
	x.entry.Status = status
	x.entry.Outcome = outcome
	x.s.complete(x.entry)
}

// goneOutcome says why the exchange ended early.
func (x *exchange) goneOutcome() string {
	if x.s.ctx.Err() != nil {
		return "server closed"
	}
	return "client disconnected"
}

// fail answers with an error in the request's API format.
func (x *exchange) fail(e *apiError, retryAfter, retryAfterMS int, outcome string) {
	requestID := x.s.nextID("req_lb")
	var body []byte
	h := x.w.Header()
	if openAIWire(x.entry.API) {
		body = openAIError(e)
		h.Set("x-request-id", requestID)
	} else {
		body = anthropicError(e, requestID)
		h.Set("request-id", requestID)
	}
	h.Set("Content-Type", "application/json")
	if retryAfter > 0 {
		h.Set("retry-after", fmt.Sprint(retryAfter))
	}
	if retryAfterMS > 0 {
		h.Set("retry-after-ms", fmt.Sprint(retryAfterMS))
	}
	x.finish(e.status, outcome)
	x.w.WriteHeader(e.status)
	_, _ = x.w.Write(body)
}

func (x *exchange) serve(r *http.Request) {
	switch r.URL.Path {
	case "/v1/messages":
		x.entry.API = APIAnthropic
	case "/v1/chat/completions":
		x.entry.API = APIOpenAI
	case "/v1/responses":
		x.entry.API = APIResponses
	case "/v1/models":
		x.serveModels(r)
		return
	default:
		x.fail(&apiError{status: http.StatusNotFound, typ: "not_found_error",
			message: fmt.Sprintf("loopback: no endpoint %s %s (Anthropic is POST /v1/messages, OpenAI is POST /v1/chat/completions or POST /v1/responses)", r.Method, r.URL.Path)},
			0, 0, "unknown endpoint")
		return
	}
	if r.Method != http.MethodPost {
		x.w.Header().Set("Allow", http.MethodPost)
		x.fail(&apiError{status: http.StatusMethodNotAllowed, typ: "invalid_request_error", message: fmt.Sprintf("method %s not allowed; use POST", r.Method)}, 0, 0, "wrong method")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(x.w, r.Body, maxBody))
	if err != nil {
		if x.ctx.Err() != nil {
			x.finish(0, x.goneOutcome())
			return
		}
		x.fail(&apiError{status: http.StatusRequestEntityTooLarge, typ: "request_too_large", message: "reading request body: " + err.Error()}, 0, 0, "bad body")
		return
	}
	x.entry.Bytes = len(body)
	var req *request
	var perr *apiError
	switch x.entry.API {
	case APIAnthropic:
		req, perr = parseAnthropic(body)
	case APIOpenAI:
		req, perr = parseOpenAI(body)
	default:
		req, perr = parseResponses(body, x.s.sameAnswer)
	}
	if req != nil {
		x.entry.Model, x.entry.Stream = req.model, req.stream
		x.entry.System, x.entry.Tools, x.entry.Messages = req.system, req.tools, req.messages
		x.entry.InputTokens = EstimateTokens(len(body))
		x.entry.ContextWindow = x.s.sc.windowFor(req.model)
		x.entry.PromptCacheKey, x.entry.ReasoningEffort = req.promptCacheKey, req.effort
		x.entry.ThinkingBudget = req.thinkingBudget
		if req.thinkingAdaptive {
			x.entry.ThinkingBudget = -1
		}
		x.entry.ThinkingReturned = len(req.thinkingBack)
	}
	s := x.s
	if s.invalid != nil {
		x.fail(&apiError{status: http.StatusInternalServerError, message: "loopback: invalid scenario: " + s.invalid.Error()}, 0, 0, "invalid scenario")
		return
	}
	if e := x.checkKey(r); e != nil {
		x.fail(e, 0, 0, "wrong api key")
		return
	}
	if perr != nil {
		x.fail(perr, 0, 0, "bad request: "+perr.message)
		return
	}
	if len(s.sc.Models) > 0 && !slices.Contains(s.sc.Models, req.model) {
		e := &apiError{status: http.StatusNotFound, message: "model: " + req.model}
		if openAIWire(req.api) {
			e = &apiError{status: http.StatusNotFound, code: "model_not_found", param: "model",
				message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.model)}
		}
		x.fail(e, 0, 0, "unknown model")
		return
	}
	if e := s.checkThinking(req); e != nil {
		x.fail(e, 0, 0, "bad request: "+e.message)
		return
	}
	if w := x.entry.ContextWindow; w > 0 && x.entry.InputTokens > w {
		x.fail(tooLong(req.api, x.entry.InputTokens, w), 0, 0, "context window exceeded")
		return
	}
	name, resp, ok := s.pickRule(req)
	if !ok {
		x.fail(&apiError{status: http.StatusInternalServerError,
			message: fmt.Sprintf("loopback: no rule matched request #%d (%s, model %q, %d tool results in the last turn); last user text: %q",
				x.entry.Seq, req.api, req.model, len(req.lastTurnResults), req.lastUserText())},
			0, 0, "no rule matched")
		return
	}
	x.entry.Rule = name
	// What the request asked for is in the log before any answer goes out.
	s.update(x.entry)
	if !sleep(x.ctx, time.Duration(resp.DelayMS)*time.Millisecond) {
		x.finish(0, x.goneOutcome())
		return
	}
	x.answer(req, resp)
}

// checkKey compares the request's key with the scenario's, if it has one.
func (x *exchange) checkKey(r *http.Request) *apiError {
	want := x.s.sc.APIKey
	if want == "" {
		return nil
	}
	bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if x.entry.API == APIAnthropic {
		key := r.Header.Get("x-api-key")
		if key == "" {
			key = bearer
		}
		switch key {
		case want:
			return nil
		case "":
			return &apiError{status: http.StatusUnauthorized, message: "x-api-key header is required"}
		}
		return &apiError{status: http.StatusUnauthorized, message: "invalid x-api-key"}
	}
	if bearer == want {
		return nil
	}
	if bearer == "" {
		return &apiError{status: http.StatusUnauthorized, message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."}
	}
	return &apiError{status: http.StatusUnauthorized, message: fmt.Sprintf("Incorrect API key provided: %s.", redact(bearer))}
}

func redact(key string) string {
	if len(key) <= 4 {
		return "****"
	}
	return key[:2] + strings.Repeat("*", len(key)-4) + key[len(key)-2:]
}

// answer sends the scripted response.
func (x *exchange) answer(req *request, resp *Response) {
	if e := resp.Error; e != nil {
		x.fail(&apiError{status: e.Status, typ: e.Type, code: e.Code, message: e.Message}, e.RetryAfter, e.RetryAfterMS, "scripted error")
		return
	}
	if se := resp.StreamError; se != nil && !req.stream {
		x.fail(&apiError{status: statusForErrorType(se.Type), typ: se.Type, message: se.Message}, 0, 0, "scripted stream_error, sent as an HTTP error")
		return
	}
	cache := x.s.cacheUsage(req, x.entry.InputTokens)
	x.entry.CacheReadTokens, x.entry.CacheReadHash, x.entry.CacheWriteTokens = cache.read, cache.readHash, cache.write
	x.entry.CacheBreakpoints = cache.breakpoints
	x.s.update(x.entry)
	a, err := newAnswer(resp, req, x.s.nextID)
	if err != nil {
		x.fail(&apiError{status: http.StatusInternalServerError, message: "loopback: " + err.Error()}, 0, 0, "bad scripted answer")
		return
	}
	a.cache = cache
	if resp.Usage != nil {
		// A scripted usage is reported as written.
		a.cache.read, a.cache.write = 0, 0
	}
	if a.thinking != "" && req.api == APIAnthropic {
		a.signature = x.s.signer.sign(a.thinking)
	}
	if a.thinking != "" && req.responses != nil && req.responses.encrypted {
		a.sealed = x.s.signer.seal(a.thinking)
	}
	if req.api == APIResponses {
		x.s.rememberCalls(a, x.entry.Seq)
	}
	h := x.w.Header()
	if openAIWire(req.api) {
		h.Set("x-request-id", x.s.nextID("req_lb"))
	} else {
		h.Set("request-id", x.s.nextID("req_lb"))
	}
	now := time.Now()
	if !req.stream {
		x.writeBody(req, resp, a, now)
		return
	}
	ro := responsesOut{a: a, rr: req.responses, created: now}
	var events []sseEvent
	switch req.api {
	case APIAnthropic:
		events = anthropicEvents(a)
	case APIOpenAI:
		events = openAIEvents(a, now, req.includeUsage)
	default:
		events = ro.events()
	}
	plan := streamPlan{chunkDelay: time.Duration(resp.ChunkDelayMS) * time.Millisecond, cutAfter: resp.CutAfterEvents}
	switch {
	case resp.Malformed:
		bad := anthropicMalformed()
		switch req.api {
		case APIOpenAI:
			bad = openAIMalformed(a)
		case APIResponses:
			bad = responsesMalformed(a)
		}
		events = insertMalformed(events, bad)
		plan.outcome = "malformed event sent"
	case resp.StreamError != nil:
		se := resp.StreamError
		switch req.api {
		case APIAnthropic:
			events = withStreamError(events, se.AfterEvents, anthropicStreamError(se.Type, se.Message))
		case APIOpenAI:
			events = withStreamError(events, se.AfterEvents, openAIStreamError(se.Type, se.Message))
		default:
			at := streamErrorAt(events, se.AfterEvents)
			events = withStreamError(events, at, ro.failed(se.Type, se.Message, at))
		}
		plan.outcome = "stream error " + se.Type
	}
	plan.events = events
	x.writeStream(plan)
}

// writeBody sends a non-streaming answer, broken as scripted.
func (x *exchange) writeBody(req *request, resp *Response, a *answer, now time.Time) {
	var body []byte
	switch req.api {
	case APIAnthropic:
		body = anthropicBody(a)
	case APIOpenAI:
		body = openAIBody(a, now)
	default:
		body = responsesOut{a: a, rr: req.responses, created: now}.body()
	}
	h := x.w.Header()
	h.Set("Content-Type", "application/json")
	switch {
	case resp.CutAfterEvents > 0:
		h.Set("Content-Length", fmt.Sprint(len(body)))
		x.w.WriteHeader(http.StatusOK)
		_, _ = x.w.Write(body[:len(body)/2])
		_ = http.NewResponseController(x.w).Flush()
		x.finish(http.StatusOK, "cut mid-body")
		panic(http.ErrAbortHandler)
	case resp.Malformed:
		body = body[:len(body)/2]
		x.finish(http.StatusOK, "malformed body sent")
	default:
		x.finish(http.StatusOK, "")
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	x.w.WriteHeader(http.StatusOK)
	_, _ = x.w.Write(body)
}

// openAIWire reports whether api is one of OpenAI's, which share the error
// shape, the bearer key and the x-request-id header.
func openAIWire(api string) bool { return api == APIOpenAI || api == APIResponses }
