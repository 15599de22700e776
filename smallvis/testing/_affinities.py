class AffinityReport: pass
def check_affinities(*a, **k): raise NotImplementedError
