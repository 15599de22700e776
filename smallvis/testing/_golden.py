def golden(m):
    raise NotImplementedError
def golden_methods():
    return []
