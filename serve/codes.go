package serve

import "net/http"

// Code is the "code" of an error answer ({"error": {"code", "message"}}):
// what a client branches on. Every code the server answers is one of the
// constants below, listed in Codes with whose fault it reports; the Python
// client's errors.py types errors by the same table, and
// TestErrorCodesTable checks both (the call sites' statuses, and what the
// client makes of every code).
type Code string

// Fault is whose failure a code reports, as the Python client types it.
type Fault string

const (
	FaultAgent       Fault = "agent"       // the request was wrong: AgentFault
	FaultEnvironment Fault = "environment" // the server or environment failed: EnvironmentFault
	FaultLost        Fault = "lost"        // the episode is gone: EpisodeLost
)

const (
	CodeBadRequest     Code = "bad_request"
	CodeValidation     Code = "validation_error"
	CodeTooLarge       Code = "too_large"
	CodeUnauthorized   Code = "unauthorized"
	CodeNotFound       Code = "not_found"
	CodeUnknownEnv     Code = "unknown_env"
	CodeUnknownTask    Code = "unknown_task"
	CodeNoTask         Code = "no_task"
	CodeNoSession      Code = "no_session"
	CodeNoUser         Code = "no_user"
	CodeSimulatedUser  Code = "simulated_user" // a route that cannot talk to the server's simulated user
	CodeEpisodeDone    Code = "episode_done"
	CodeResetFailed    Code = "reset_failed"
	CodeEpisodeFailed  Code = "episode_failed"
	CodeQuota          Code = "quota"
	CodeCapacity       Code = "capacity"
	CodeMemory         Code = "memory"
	CodeBusy           Code = "busy"
	CodeScoreBusy      Code = "score_busy"
	CodeOutOfMemory    Code = "out_of_memory"
	CodeUserFailed     Code = "user_failed"
	CodeInternal       Code = "internal"
	CodeUnknownEpisode Code = "unknown_episode"
	CodeStateLost      Code = "state_lost"
	CodeEpisodeClosed  Code = "episode_closed"
	CodeEpisodeLost    Code = "episode_lost" // a gateway's: the episode's worker is gone (fleet)
	CodeScoreFailed    Code = "score_failed" // stateError's codes
	CodeDiffFailed     Code = "diff_failed"  //
)

// CodeInfo is one row of the table: a code, whose fault it reports, and
// the statuses it comes with.
type CodeInfo struct {
	Code     Code
	Fault    Fault
	Statuses []int
}

// Codes is every error code the episode API answers.
var Codes = []CodeInfo{
	{CodeBadRequest, FaultAgent, []int{http.StatusBadRequest}},
	{CodeValidation, FaultAgent, []int{http.StatusUnprocessableEntity}},
	{CodeTooLarge, FaultAgent, []int{http.StatusRequestEntityTooLarge}},
	{CodeUnauthorized, FaultAgent, []int{http.StatusUnauthorized}},
	{CodeNotFound, FaultAgent, []int{http.StatusNotFound}},
	{CodeUnknownEnv, FaultAgent, []int{http.StatusNotFound}},
	{CodeUnknownTask, FaultAgent, []int{http.StatusNotFound}},
	{CodeNoTask, FaultAgent, []int{http.StatusConflict}},
	{CodeNoSession, FaultAgent, []int{http.StatusBadRequest}},
	{CodeNoUser, FaultAgent, []int{http.StatusConflict}},
	{CodeSimulatedUser, FaultAgent, []int{http.StatusConflict}},
	{CodeEpisodeDone, FaultAgent, []int{http.StatusConflict}},
	{CodeResetFailed, FaultEnvironment, []int{http.StatusConflict}},
	{CodeEpisodeFailed, FaultEnvironment, []int{http.StatusUnprocessableEntity}},
	{CodeScoreFailed, FaultEnvironment, []int{http.StatusUnprocessableEntity}},
	{CodeDiffFailed, FaultEnvironment, []int{http.StatusUnprocessableEntity}},
	{CodeQuota, FaultEnvironment, []int{http.StatusTooManyRequests}},
	{CodeCapacity, FaultEnvironment, []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}},
	{CodeMemory, FaultEnvironment, []int{http.StatusTooManyRequests}},
	{CodeBusy, FaultEnvironment, []int{http.StatusServiceUnavailable}},
	{CodeScoreBusy, FaultEnvironment, []int{http.StatusServiceUnavailable}},
	{CodeOutOfMemory, FaultEnvironment, []int{http.StatusInsufficientStorage}},
	{CodeUserFailed, FaultEnvironment, []int{http.StatusBadGateway}},
	{CodeInternal, FaultEnvironment, []int{http.StatusInternalServerError}},
	{CodeUnknownEpisode, FaultLost, []int{http.StatusNotFound}},
	{CodeStateLost, FaultLost, []int{http.StatusConflict}},
	{CodeEpisodeClosed, FaultLost, []int{http.StatusConflict}},
	{CodeEpisodeLost, FaultLost, []int{http.StatusGone}},
}
